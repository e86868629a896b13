// The scenarios every agent CLI is driven through (docs/agents.md, "The conformance suite"). A
// scenario is a script for a stand-in model: given what the CLI sent (the conversation so far),
// it says what the model answers next. The answers are agent-neutral (text, or a shell command);
// each stand-in API turns them into its own wire format and its CLI's shell tool.

/** One model turn: words, and optionally one shell command the CLI should run before the next turn. */
export interface ModelTurn {
  text?: string;
  shell?: string;
}

export interface TurnContext {
  /** Model turns already in this session's conversation (0 on a fresh session's first request). */
  turn: number;
  /** The whole request body as text, for markers the scenario looks for. */
  body: string;
}

export interface Scenario {
  name: string;
  /** Answers the request; `undefined` means the scenario has nothing more to say ("done."). */
  next(ctx: TurnContext): ModelTurn;
}

const writeSummary = (plan: string) =>
  `cat > "$RALPH_SUMMARY" <<'JSON'\n${JSON.stringify({ plan, status: 'complete', tasks: [{ name: 'Task 1: greeting', status: 'done' }], files_changed: ['greeting.txt'] })}\nJSON\necho written`;

const OBSERVATION =
  '<observation type="insight" severity="low"><title>Greeting file added</title><detail>greeting.txt holds the greeting</detail></observation>';

/** The marker a plan carries so that the stand-in knows which script to follow. */
export const marker = (name: string) => `SCENARIO-${name}-MARKER`;

export const SCENARIOS: Record<string, Scenario> = {
  // Completion with the summary written by a tool call, and an observation in the agent's words.
  complete: {
    name: 'complete',
    next: ({ turn }) =>
      [
        { text: 'Creating the file.', shell: 'echo hello > greeting.txt && cat greeting.txt' },
        { shell: writeSummary('complete') },
        { text: `All done.\n${OBSERVATION}\n###PLAN_COMPLETE###` },
      ][turn] ?? { text: 'done.' },
  },
  // A tool's output carries the sentinel; the model never says it. Then the model completes properly.
  toolsignal: {
    name: 'toolsignal',
    next: ({ turn }) =>
      [
        { shell: 'printf "notes\\n###PLAN_COMPLETE###\\n" > notes.txt && cat notes.txt' },
        { text: 'I read the notes. Still working.' },
      ][turn] ?? { text: 'Still working.' },
  },
  // A bailout, then a fresh session (the resume prompt names the reason) that completes.
  bailout: {
    name: 'bailout',
    next: ({ turn, body }) => {
      if (!body.includes('CTX-FULL')) return turn === 0 ? { text: 'My context is full.\n###BAILOUT:CTX-FULL###' } : { text: 'done.' };
      return (
        [{ shell: writeSummary('bailout') }, { text: 'Finished in a fresh context.\n###PLAN_COMPLETE###' }][turn] ?? { text: 'done.' }
      );
    },
  },
  // A long command: ralph stops the agent (an iteration timeout) while it runs.
  slow: {
    name: 'slow',
    next: ({ turn }) => (turn === 0 ? { text: 'Running the long suite.', shell: 'sleep 25' } : { text: 'The suite finished.' }),
  },
  // An iteration without a decision, then the same session resumed: its history holds turn 0.
  resume: {
    name: 'resume',
    next: ({ turn }) =>
      [{ text: 'Not done yet, thinking.' }, { shell: writeSummary('resume') }, { text: 'Resumed and finished.\n###PLAN_COMPLETE###' }][turn] ?? {
        text: 'done.',
      },
  },
};

export function scenarioOf(body: string): Scenario | undefined {
  for (const scenario of Object.values(SCENARIOS)) if (body.includes(marker(scenario.name))) return scenario;
  return undefined;
}

/** A plan for one scenario: one task, no verify command, its marker in the text. */
export function planText(name: string): string {
  return `---\nid: ${name}\n---\n# ${marker(name)}\n\nWrite greeting.txt.\n\n<tasks>\n<task><name>Task 1: greeting</name><action>echo hello > greeting.txt</action></task>\n</tasks>\n\n## Progress\n`;
}
