// How ralph's own shell commands end — verify commands, hooks, notification targets
// (docs/hostile.md "Verify commands"): when the shell exits, when the timeout passes or when the
// caller aborts. Then everything the command started is stopped (its process group, its
// descendants, what carries its marker in the environment, as the caller's scope says) and its
// output pipes are closed, never waited on, since a daemon can hold them open for ever.
import type { ChildProcess } from 'node:child_process';
import { stopProcesses, type FindOptions } from './process-tree.js';
import type { ProcessInfo } from './proc-stat.js';
import { OutputTail } from '../util/output-tail.js';

export interface BoundedEnd {
  /** null when it timed out or was aborted. */
  exitCode: number | null;
  timedOut: boolean;
  aborted: boolean;
  /** The shell exited (or could not be run) before the end. */
  exited: boolean;
  /** The end of what it wrote (stdout and stderr together), as it is. */
  output: string;
  /** Set when sh could not be run. */
  error?: string;
  /** The processes stopped at the end. */
  stopped: ProcessInfo[];
}

export interface BoundedOptions {
  /** What to stop at the end; nothing when undefined. */
  scope: FindOptions | undefined;
  tailBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** After the shell exits, how long its output may stay open before what holds it is stopped. */
  drainMs: number;
  killGraceMs: number;
  /** Called once what the command started is stopped, before its pipes are closed. */
  afterStop?: () => void;
}

/** Watches a shell the caller has spawned (detached, stdout and stderr piped) until it ends. */
export function superviseShell(child: ChildProcess, options: BoundedOptions): Promise<BoundedEnd> {
  const { scope, signal, drainMs, killGraceMs } = options;
  return new Promise((resolve) => {
    const tail = new OutputTail(options.tailBytes);
    child.stdout?.on('data', tail.push);
    child.stderr?.on('data', tail.push);

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
      options.afterStop?.();
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      resolve({
        exitCode: timedOut || aborted ? null : exitCode,
        timedOut,
        aborted,
        exited,
        output: tail.text(),
        ...(error !== undefined ? { error } : {}),
        stopped,
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
