// The Executor seam (DESIGN.md): an executor turns one prompt into a stream of events and never
// decides anything; the loop never spawns processes or calls the API itself.

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

export const ZERO_USAGE: TokenUsage = Object.freeze({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  };
}

/**
 * This turn's share of a running total: `total` less what the session reported `before`. A total
 * below the earlier one is not a running total (a new session under an old id): it is taken whole.
 */
export function usageSince(total: TokenUsage, before: TokenUsage | undefined): TokenUsage {
  if (before === undefined) return total;
  const grew = total.input >= before.input && total.output >= before.output && total.cacheRead >= before.cacheRead && total.cacheWrite >= before.cacheWrite;
  if (!grew) return total;
  return { input: total.input - before.input, output: total.output - before.output, cacheRead: total.cacheRead - before.cacheRead, cacheWrite: total.cacheWrite - before.cacheWrite };
}

/** What one iteration's prompt is made of; `text` is the whole of it, in order. */
export interface Prompt {
  /** The instructions ralph adds (signals, summary path, observation format). Stable across iterations. */
  instructions: string;
  /** The plan file's text. Stable across iterations of one run. */
  plan: string;
  /** What is particular to this iteration: continuation, resume reason, rejection feedback. */
  message: string;
  /** instructions + plan + message, as one text for executors that take a single prompt. */
  text: string;
}

export interface ExecutorRunOptions {
  prompt: Prompt;
  cwd: string;
  /** true: start a fresh context (new conversation/session); false: continue the previous one. */
  fresh: boolean;
  /** 1-based iteration number of the run. */
  iteration: number;
  /** Extra environment for spawned programs (the RALPH_* variables). */
  env: Record<string, string>;
  /** Variables of ralph's own environment the agent must not receive (docs/config.md: secrets). */
  hideEnv?: readonly string[];
  /** Aborted when the loop wants the executor stopped (silence, limits, interrupt, grace). */
  signal: AbortSignal;
  /** What is left of the run's --max-cost (USD), for agents that accept a budget. */
  budgetUsd?: number;
  /** The loop's clock (epoch ms), against which an agent's "resets 3am" is read. */
  now?: () => number;
}

export type ExecutorEvent =
  /** Agent text to be read for signals and observations. */
  | {
      type: 'text';
      stream: 'stdout' | 'stderr';
      chunk: Buffer | string;
      /** Already in the transcript as raw output (e.g. a JSON stream's event): parse, do not log again. */
      parseOnly?: boolean;
      /** The first text of a new assistant message: no fence or observation carries over into it. */
      messageStart?: boolean;
    }
  /** Output that is logged in the transcript but never parsed (e.g. stderr of a JSON stream, tool output). */
  | { type: 'log'; stream: 'stdout' | 'stderr'; chunk: Buffer | string }
  /** Bytes arrived that carry no agent text (a JSON event, a heartbeat): proof of life for the watchdog. */
  | { type: 'activity' }
  /** Tokens and cost of one request or one report; summed by the loop. costUsd null = unknown price. */
  | {
      type: 'usage';
      tokens: TokenUsage;
      costUsd: number | null;
      contextTokens?: number;
      /** Counted from per-message reports because the agent's final report never came (docs/agents.md). */
      estimate?: boolean;
    }
  /**
   * A tool the agent used. `phase: 'call'`: it asked for the tool and the outcome is not known
   * yet; otherwise the call finished, and `error` is set when it failed (feeds the error-loop
   * detector, which a finished call without error resets).
   */
  | { type: 'tool'; name: string; summary: string; error?: string; phase?: 'call' }
  /** The executor's own session id, for continuing the same conversation later. */
  | { type: 'session'; id: string }
  /** The process group the executor started, so a crashed ralph's orphan can be stopped on resume. */
  | { type: 'process'; pid: number }
  | { type: 'warning'; message: string }
  /**
   * The agent reported an error (an API error, a failed turn). Shown as a warning and kept as the
   * iteration's error detail; `fatal` (a refused API key: 401/403) means no iteration can succeed,
   * so the iteration is stopped and the run ends failed. `status` is the API's HTTP status if known.
   * `limit`: a `limit` event with the same message follows, which is what is shown (one line per refusal).
   */
  | { type: 'error'; message: string; status?: number; fatal?: boolean; limit?: boolean }
  /**
   * The agent or the API refused for a usage or rate limit, or is overloaded. The loop waits
   * (docs/overnight.md) instead of counting a failure. `resetsAt` (epoch ms) when the agent said
   * when the limit resets (`resetFromWords` when that time was read from its words, rounded to the
   * minute, rather than from an exact timestamp), `retryAfterMs` when it said how long to wait;
   * neither: back off.
   */
  | { type: 'limit'; kind: LimitKind; message: string; resetsAt?: number; resetFromWords?: boolean; retryAfterMs?: number }
  /** The agent's own permission system refused a tool call (the stall breaker counts these). */
  | { type: 'permission_denied'; tool: string; summary: string }
  /**
   * The end of the iteration. `code` is the process exit code (or 0/1 for in-process executors);
   * `error` says why the executor could not run or failed; `fatal` means no further iteration can
   * succeed (program not found, bad API key).
   */
  | {
      type: 'exit';
      code: number | null;
      signal?: string | null;
      error?: string;
      fatal?: boolean;
      /** The last lines the program wrote to stderr, to say why it failed (docs/agents.md). */
      stderrTail?: string;
      /** Asked to resume a session, the agent refused: that session does not exist (docs/agents.md). */
      resumeRefused?: boolean;
    };

/** usage: a plan's quota (five-hour, weekly); rate: requests or tokens per minute; overloaded: 529. */
export type LimitKind = 'usage' | 'rate' | 'overloaded';

export interface Executor {
  readonly name: string;
  run(options: ExecutorRunOptions): AsyncIterable<ExecutorEvent>;
  /** The run is over: release what lives across iterations (a shell session). */
  close?(): Promise<void>;
  /**
   * Whether a run with fresh=false would really continue the previous conversation: true (it
   * would, so a short continue prompt is enough), false (there is no session to resume, e.g. the
   * agent died before reporting one: the loop starts a fresh context and says so), undefined (not
   * known: a plain program may keep its own state). Absent: true.
   */
  canContinue?(): boolean | undefined;
  /**
   * Processes the executor keeps across iterations on purpose (the anthropic executor's persistent
   * shell). When an iteration ends they are spared; what they started is not (docs/hostile.md).
   */
  keptProcesses?(): number[];
}

/**
 * ralph's environment, then `extra` (credentials ralph holds for agent CLIs), then `run.env`,
 * without the variables the agent must not see.
 */
export function agentEnvironment(run: Pick<ExecutorRunOptions, 'env' | 'hideEnv'>, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra, ...run.env };
  for (const name of run.hideEnv ?? []) delete env[name];
  // ralph's own setting (docs/sandbox.md), not the agent's.
  delete env.RALPH_SANDBOX;
  return env;
}
