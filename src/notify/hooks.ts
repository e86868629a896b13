// Lifecycle hooks (docs/config.md): the project's own shell commands at a run's and a batch's
// turning points, in the working directory, with the facts in the environment and as JSON on
// stdin, each bounded in time. A hook's failure is a warning; an after_iteration hook exiting
// with HOOKS.stopExitCode asks the run to stop after that iteration.
import { HOOKS, NOTIFY, type HookName } from '../contract.js';
import type { HookCommand } from '../config/types.js';
import { clean } from './payload.js';
import type { Redact } from './redact.js';
import { runShell, stoppedNote } from './shell.js';
import { formatDuration } from '../util/duration.js';

export interface HookCall {
  hook: HookName;
  cwd: string;
  /** RALPH_* facts for the environment. */
  env: Record<string, string>;
  /** What goes to stdin as JSON (with `version` and `hook` added). */
  payload: Record<string, unknown>;
}

export class HookRunner {
  constructor(
    private readonly hooks: Partial<Record<HookName, HookCommand[]>>,
    private readonly options: { redact: Redact; onWarning: (message: string) => void; env?: NodeJS.ProcessEnv; signal?: AbortSignal },
  ) {}

  has(hook: HookName): boolean {
    return (this.hooks[hook]?.length ?? 0) > 0;
  }

  /** Runs the hook's commands in order; resolves to a stop reason when one asks the run to stop. */
  async run(call: HookCall): Promise<string | undefined> {
    const interruptible = HOOKS.interruptible[call.hook];
    let stop: string | undefined;
    for (const [i, command] of (this.hooks[call.hook] ?? []).entries()) {
      if (interruptible && this.options.signal?.aborted) break;
      const timeoutMs = command.timeoutMs ?? HOOKS.timeoutMs;
      const out = await runShell(command.run, {
        cwd: call.cwd,
        env: { ...(this.options.env ?? process.env), ...call.env, RALPH_HOOK: call.hook },
        stdin: `${JSON.stringify({ version: NOTIFY.payloadVersion, hook: call.hook, ...call.payload })}\n`,
        timeoutMs,
        ...(interruptible && this.options.signal ? { signal: this.options.signal } : {}),
      });
      const name = `${call.hook} hook${(this.hooks[call.hook]?.length ?? 0) > 1 ? ` #${i + 1}` : ''}`;
      const lastLine = this.options.redact(out.tail.split('\n').pop() ?? '');
      if (out.error) this.warn(`${name} could not run: ${out.error}`);
      else if (out.timedOut) this.warn(`${name} was stopped after ${formatDuration(timeoutMs)} (its timeout)${stoppedNote(out)}`);
      else if (out.aborted) this.warn(`${name} was stopped: the run was interrupted${stoppedNote(out)}`);
      else if (out.exitCode === HOOKS.stopExitCode && call.hook === 'after_iteration') {
        stop ??= `stopped by the after_iteration hook (exit ${HOOKS.stopExitCode})${lastLine ? `: ${clean(lastLine, 300)}` : ''}`;
      } else if (out.exitCode !== 0) this.warn(`${name} exited ${out.exitCode ?? 'by a signal'}${lastLine ? `: ${clean(lastLine, 300)}` : ''}`);
      // Nothing a hook starts outlives it: what it left running was stopped when it exited.
      if (!out.timedOut && !out.aborted && out.stopped.length > 0) this.warn(`${name} left processes running when it exited${stoppedNote(out)}`);
    }
    return stop;
  }

  private warn(message: string): void {
    this.options.onWarning(this.options.redact(message));
  }
}
