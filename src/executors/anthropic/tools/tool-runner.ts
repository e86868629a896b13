// Runs the tools the model calls, one conversation's worth: a persistent bash session and the text
// editor, both in the working directory. A tool never throws at the executor: every failure becomes
// an is_error result the model can read and act on, plus a `tool` event with the error text.
import type { SandboxedSpawn } from '../../../sandbox/types.js';
import type { ToolUnion } from '@anthropic-ai/sdk/resources/messages/messages';
import type { Redactor } from '../redact.js';
import { agentEnvironment } from '../../types.js';
import { CREDENTIAL_VARS as CREDENTIALS } from '../../../util/credentials.js';
import { BashSession, DEFAULT_COMMAND_TIMEOUT_MS, type BashResult } from './bash-session.js';
import { TEXT_EDITOR_NAME, TEXT_EDITOR_TYPE, ToolError, runTextEditor, summarizeEditor, type EditorInput } from './text-editor.js';

const BASH_NAME = 'bash';

export const TOOL_DEFINITIONS: ToolUnion[] = [
  { type: 'bash_20250124', name: BASH_NAME },
  { type: TEXT_EDITOR_TYPE, name: TEXT_EDITOR_NAME },
];

/** Environment variables that carry Anthropic credentials: never handed to the agent's shell. */
const CREDENTIAL_VARS: readonly string[] = CREDENTIALS;

export interface ToolRunnerOptions {
  cwd: string;
  /** Extra variables for the shell (RALPH_*), on top of ralph's own environment. */
  env: Record<string, string>;
  /** Variables of ralph's environment the shell must not get (docs/config.md: secrets). */
  hideEnv?: readonly string[];
  apiKey: string;
  redactor: Redactor;
  commandTimeoutMs?: number;
  outputLimit?: number;
  /** The shell as ralph's sandbox starts it (docs/sandbox.md); without it, bash in a PID namespace. */
  shell?: SandboxedSpawn;
}

export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

export interface ToolOutcome {
  /** What the model reads (already scrubbed of the key). */
  content: string;
  isError: boolean;
  summary: string;
  /** Set when the call failed; the first line of what went wrong. */
  error?: string;
}

const SUMMARY_LIMIT = 200;

function oneLine(text: string): string {
  const first = text.split('\n', 1)[0] ?? '';
  const more = first.length < text.trimEnd().length ? ' …' : '';
  return (first.length > SUMMARY_LIMIT ? `${first.slice(0, SUMMARY_LIMIT)}…` : first) + more;
}

function formatMs(ms: number): string {
  return ms < 1000 ? `${ms}ms` : `${Math.round(ms / 1000)}s`;
}

export function shellEnvironment(extra: Record<string, string>, apiKey: string, hide: readonly string[] = []): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = agentEnvironment({ env: extra, hideEnv: hide });
  for (const name of CREDENTIAL_VARS) delete env[name];
  // The same key under another name is still the key.
  for (const [name, value] of Object.entries(env)) if (apiKey && value === apiKey) delete env[name];
  return env;
}

export class ToolRunner {
  private readonly bash: BashSession;
  private readonly timeoutMs: number;

  constructor(private readonly options: ToolRunnerOptions) {
    this.timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    this.bash = new BashSession({
      cwd: options.cwd,
      env: shellEnvironment(options.env, options.apiKey, options.hideEnv),
      timeoutMs: this.timeoutMs,
      ...(options.outputLimit !== undefined ? { outputLimit: options.outputLimit } : {}),
      ...(options.shell ? { shell: options.shell } : {}),
    });
  }

  /** The RALPH_* variables of a later iteration: the running shell exports them before its next command. */
  updateEnv(extra: Record<string, string>): void {
    const safe = Object.fromEntries(
      Object.entries(extra).filter(([k, v]) => !CREDENTIAL_VARS.includes(k) && v !== this.options.apiKey),
    );
    this.bash.updateEnv(safe);
  }

  /** The persistent shell's own processes (unshare and its bash, or bash), kept across iterations. */
  get shellPids(): number[] {
    return this.bash.shellPids();
  }

  /** pid of the bash session's process group while one is running. */
  get bashPid(): number | undefined {
    return this.bash.pid;
  }

  async run(call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> {
    const input = (call.input && typeof call.input === 'object' ? call.input : {}) as Record<string, unknown>;
    const scrub = this.options.redactor.scrub;
    try {
      if (call.name === BASH_NAME) return this.scrubbed(await this.runBash(input, signal));
      if (call.name === TEXT_EDITOR_NAME) {
        const summary = summarizeEditor(input as EditorInput);
        try {
          return this.scrubbed({ content: await runTextEditor(this.options.cwd, input as EditorInput), isError: false, summary });
        } catch (e) {
          if (e instanceof ToolError) return this.scrubbed({ content: e.message, isError: true, summary, error: e.message });
          throw e;
        }
      }
      const message = `unknown tool ${JSON.stringify(call.name)}; the tools are ${BASH_NAME} and ${TEXT_EDITOR_NAME}`;
      return this.scrubbed({ content: message, isError: true, summary: call.name, error: message });
    } catch (e) {
      // Not expected (the tools report their own failures), but the model must still get a result.
      const message = `the tool failed unexpectedly: ${scrub((e as Error).message ?? String(e))}`;
      return this.scrubbed({ content: message, isError: true, summary: call.name, error: message });
    }
  }

  private scrubbed(o: ToolOutcome): ToolOutcome {
    const scrub = this.options.redactor.scrub;
    return {
      content: scrub(o.content),
      isError: o.isError,
      summary: scrub(o.summary),
      ...(o.error !== undefined ? { error: scrub(o.error) } : {}),
    };
  }

  private async runBash(input: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutcome> {
    if (input['restart'] === true) {
      await this.bash.restart();
      return { content: 'The bash session was restarted (new shell, in the working directory).', isError: false, summary: 'restart' };
    }
    const command = input['command'];
    if (typeof command !== 'string' || command.trim() === '') {
      const message = 'bash needs `command` (a non-empty string), or `restart: true`';
      return { content: message, isError: true, summary: '(no command)', error: message };
    }
    const summary = `$ ${oneLine(command)}`;
    const result = await this.bash.run(command, signal);
    return { summary, ...this.describe(result) };
  }

  private describe(r: BashResult): Omit<ToolOutcome, 'summary'> {
    let text = r.stdout;
    if (r.stderr) text += (text && !text.endsWith('\n') ? '\n' : '') + r.stderr;
    if (r.timedOut) {
      const error = `the command timed out after ${formatMs(this.timeoutMs)} and was stopped`;
      const content = `${text}${text ? '\n' : ''}[${error}; the bash session was restarted, so its working directory and variables were reset. Run long jobs in the background with output to a file, or narrow the command.]`;
      return { content, isError: true, error };
    }
    if (r.aborted) {
      const error = 'the command was interrupted because the iteration was stopped';
      return { content: `${text}${text ? '\n' : ''}[${error}]`, isError: true, error };
    }
    if (r.shellExited) {
      const error = 'the bash session exited during the command';
      return { content: `${text}${text ? '\n' : ''}[${error}; the next command starts a new session in the working directory]`, isError: true, error };
    }
    if (r.exitCode !== 0) {
      const stderrLine = r.stderr.trim().split('\n').at(-1) ?? '';
      const error = `exit code ${r.exitCode}${stderrLine ? `: ${oneLine(stderrLine)}` : ''}`;
      return { content: `${text}${text && !text.endsWith('\n') ? '\n' : ''}[exit code ${r.exitCode}]`, isError: false, error };
    }
    return { content: text === '' ? '(no output)' : text, isError: false };
  }

  /** Stops the bash session and everything it started. */
  async close(): Promise<void> {
    await this.bash.stop();
    this.options.shell?.done();
  }
}
