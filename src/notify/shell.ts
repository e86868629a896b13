// One shell command for a hook or a notification target: `sh -c` in a folder, JSON on stdin,
// facts in the environment, bounded in time. As with verify commands (docs/hostile.md "Verify
// commands"), the command is over when its shell exits, when its timeout passes or when it is
// aborted: then everything it started is stopped — its process group, its descendants, and what
// carries its marker in the environment (a `setsid` daemon that left both) — and its output pipes
// are closed, never waited on, since a daemon can hold them open for ever.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { DEFAULTS } from '../contract.js';
import { stopProcesses, type FindOptions } from '../executors/process-tree.js';
import { OutputTail } from '../util/output-tail.js';

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

export function runShell(command: string, options: ShellOptions): Promise<ShellOutcome> {
  const { signal, drainMs = DEFAULT_DRAIN_MS, killGraceMs = DEFAULTS.killGraceMs } = options;
  const marker = { name: SHELL_MARKER, value: randomBytes(8).toString('hex') };
  return new Promise((resolve) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn('sh', ['-c', command], { cwd: options.cwd, env: { ...options.env, [marker.name]: marker.value }, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ exitCode: null, timedOut: false, aborted: false, tail: '', error: (error as Error).message, stopped: [] });
      return;
    }
    const scope: FindOptions | undefined = child.pid !== undefined ? { roots: [child.pid], groups: [child.pid], marker } : undefined;
    const tail = new OutputTail(TAIL_BYTES);
    child.stdout.on('data', tail.push);
    child.stderr.on('data', tail.push);
    // A command that does not read its stdin closes the pipe early: that is not a failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin);

    let timedOut = false;
    let aborted = false;
    let exited = false;
    let exitCode: number | null = null;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = async (error?: string): Promise<void> => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      signal?.removeEventListener('abort', onAbort);
      const stopped = scope !== undefined ? await stopProcesses(scope, killGraceMs) : [];
      child.stdout.destroy();
      child.stderr.destroy();
      child.stdin.destroy();
      resolve({
        exitCode: timedOut || aborted ? null : exitCode,
        timedOut,
        aborted,
        tail: tail.text().trimEnd(),
        ...(error !== undefined ? { error } : {}),
        stopped: stopped.map((p) => `${p.comm} (pid ${p.pid})`),
      });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      void finish();
    }, options.timeoutMs);
    const onAbort = (): void => {
      aborted = true;
      void finish();
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      exited = true;
      void finish(`cannot run sh: ${e.message}`);
    });
    child.on('exit', (code) => {
      exited = true;
      exitCode = code;
      // The output is read to its end unless something the command left behind holds it open.
      drainTimer = setTimeout(() => void finish(), drainMs);
    });
    child.on('close', () => {
      if (exited) void finish();
    });
  });
}

/** "; stopped 2 processes: sh (pid 1), sleep (pid 2)", or nothing. */
export function stoppedNote(out: ShellOutcome): string {
  if (out.stopped.length === 0) return '';
  const shown = out.stopped.slice(0, 5).join(', ') + (out.stopped.length > 5 ? ', …' : '');
  return `; stopped ${out.stopped.length} process${out.stopped.length === 1 ? '' : 'es'}: ${shown}`;
}
