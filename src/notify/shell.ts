// One shell command for a hook or a notification target: `sh -c` in a folder, JSON on stdin,
// facts in the environment, bounded in time. It ends as verify commands do (executors/bounded-shell.ts,
// docs/hostile.md "Verify commands"): everything it started is stopped — its process group, its
// descendants, and what carries its marker in the environment (a `setsid` daemon that left both).
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { DEFAULTS } from '../contract.js';
import { superviseShell } from '../executors/bounded-shell.js';
import type { FindOptions } from '../executors/process-tree.js';

export interface ShellOutcome {
  exitCode: number | null;
  timedOut: boolean;
  /** Stopped because its caller gave up (an interrupted run, notifications past their bound). */
  aborted: boolean;
  /** The end of what it wrote (stdout and stderr together). */
  tail: string;
  /** Set when sh could not be started at all. */
  error?: string;
  /** The processes ralph stopped when the command ended ("sleep (pid 4242)"): what it left running, or all of it. */
  stopped: string[];
}

export interface ShellOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** After the shell exits, how long its output may stay open before what holds it is stopped. */
  drainMs?: number;
  killGraceMs?: number;
}

const TAIL_BYTES = 2_000;
const DEFAULT_DRAIN_MS = 500;
/** Marks every process a hook or command target starts, whatever it does to its process group. */
const SHELL_MARKER = 'RALPH_SHELL_ID';

export async function runShell(command: string, options: ShellOptions): Promise<ShellOutcome> {
  const { signal, drainMs = DEFAULT_DRAIN_MS, killGraceMs = DEFAULTS.killGraceMs } = options;
  const marker = { name: SHELL_MARKER, value: randomBytes(8).toString('hex') };
  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn('sh', ['-c', command], { cwd: options.cwd, env: { ...options.env, [marker.name]: marker.value }, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (error) {
    return { exitCode: null, timedOut: false, aborted: false, tail: '', error: (error as Error).message, stopped: [] };
  }
  const scope: FindOptions | undefined = child.pid !== undefined ? { roots: [child.pid], groups: [child.pid], marker } : undefined;
  // A command that does not read its stdin closes the pipe early: that is not a failure.
  child.stdin.on('error', () => {});
  child.stdin.end(options.stdin);
  const end = await superviseShell(child, { scope, tailBytes: TAIL_BYTES, timeoutMs: options.timeoutMs, signal, drainMs, killGraceMs });
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
