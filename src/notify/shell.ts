// One shell command for a hook or a notification target: `sh -c` in a folder, JSON on stdin,
// facts in the environment, bounded in time. It ends as verify commands do (executors/bounded-shell.ts,
// docs/hostile.md "Verify commands"): everything it started is stopped — its process group, its
// descendants, and what carries its marker in the environment (a `setsid` daemon that left both).
import { DEFAULTS } from '../contract.js';
import { runBoundedShell, type BoundedEnd, type RunShellOptions } from '../executors/bounded-shell.js';

export interface ShellOutcome extends Pick<BoundedEnd, 'exitCode' | 'timedOut' | 'aborted' | 'error'> {
  /** The end of what it wrote (stdout and stderr together). */
  tail: string;
  /** The processes ralph stopped when the command ended ("sleep (pid 4242)"): what it left running, or all of it. */
  stopped: string[];
}

export interface ShellOptions extends Pick<RunShellOptions, 'cwd' | 'env' | 'timeoutMs' | 'signal'>, Partial<Pick<RunShellOptions, 'drainMs' | 'killGraceMs'>> {
  stdin: string;
}

const TAIL_BYTES = 2_000;
const DEFAULT_DRAIN_MS = 500;
/** Marks every process a hook or command target starts, whatever it does to its process group. */
const SHELL_MARKER = 'RALPH_SHELL_ID';

export async function runShell(command: string, options: ShellOptions): Promise<ShellOutcome> {
  const { signal, drainMs = DEFAULT_DRAIN_MS, killGraceMs = DEFAULTS.killGraceMs } = options;
  let end: BoundedEnd;
  try {
    // Never in the sandbox: hooks and notification targets are the user's own commands.
    end = await runBoundedShell('sh', ['-c', command], { cwd: options.cwd, env: options.env, stdin: options.stdin, markerName: SHELL_MARKER, tailBytes: TAIL_BYTES, timeoutMs: options.timeoutMs, signal, drainMs, killGraceMs });
  } catch (error) {
    return { exitCode: null, timedOut: false, aborted: false, tail: '', error: (error as Error).message, stopped: [] };
  }
  return {
    exitCode: end.exitCode,
    timedOut: end.timedOut,
    aborted: end.aborted,
    tail: end.output.trimEnd(),
    ...(end.error !== undefined ? { error: end.error } : {}),
    stopped: end.stopped.map((p) => `${p.comm} (pid ${p.pid})`),
  };
}

/** "; stopped 2 processes: sh (pid 1), sleep (pid 2)", or nothing. */
export function stoppedNote(out: ShellOutcome): string {
  if (out.stopped.length === 0) return '';
  const shown = out.stopped.slice(0, 5).join(', ') + (out.stopped.length > 5 ? ', …' : '');
  return `; stopped ${out.stopped.length} process${out.stopped.length === 1 ? '' : 'es'}: ${shown}`;
}
