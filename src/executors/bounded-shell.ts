// How ralph's own shell commands run and end — verify commands, land checks, hooks, notification
// targets (docs/hostile.md "Verify commands"): in a process group of their own, every process
// marked in its environment; over when the shell exits, when the timeout passes or when the
// caller aborts. Then everything the command started is stopped (its process group, its
// descendants, what carries its marker) and its output pipes are closed, never waited on, since a
// daemon can hold them open for ever. What differs between callers (the program — `sh -c` or a
// sandbox's wrapper —, the environment, stdin, how much output is kept) is theirs to say.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { stopProcesses, type FindOptions } from './process-tree.js';
import type { ProcessInfo } from './proc-stat.js';
import { OutputTail } from '../util/output-tail.js';

export interface BoundedEnd {
  /** null when it timed out or was aborted. */
  exitCode: number | null;
  timedOut: boolean;
  /** Stopped because the caller gave up (an interrupted run, notifications past their bound). */
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
  /** What to stop at the end. */
  scope: FindOptions;
  tailBytes: number;
  timeoutMs: number;
  signal?: AbortSignal;
  /** After the shell exits, how long its output may stay open before what holds it is stopped. */
  drainMs: number;
  killGraceMs: number;
  /** Called once what the command started is stopped, before its pipes are closed. */
  afterStop?: () => void;
  /** Sees every chunk of its output as it comes. */
  onOutput?: (chunk: Buffer) => void;
}

export interface RunShellOptions extends Omit<BoundedOptions, 'scope'> {
  cwd: string;
  /** The command's whole environment: what of ralph's own it gets is the caller's choice. */
  env: NodeJS.ProcessEnv;
  /** The variable that marks every process the command starts, whatever it does to its process group. */
  markerName: string;
  /** Written to its stdin; without it, stdin is /dev/null. */
  stdin?: string;
}

/**
 * Runs `program args` (`sh -c <command>`, or a sandbox's wrapper of it) until it ends, then stops
 * all it started. Throws as spawn does when it cannot even be tried; a shell that cannot be run
 * ends with `error` set.
 */
export function runBoundedShell(program: string, args: string[], options: RunShellOptions): Promise<BoundedEnd> {
  const marker = { name: options.markerName, value: randomBytes(8).toString('hex') };
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: { ...options.env, [marker.name]: marker.value },
    detached: true,
    stdio: [options.stdin !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  const scope: FindOptions = { ...(child.pid !== undefined ? { roots: [child.pid], groups: [child.pid] } : {}), marker };
  const ending = superviseShell(child, { ...options, scope });
  if (options.stdin !== undefined) {
    // A command that does not read its stdin closes the pipe early: that is not a failure.
    child.stdin!.on('error', () => {});
    child.stdin!.end(options.stdin);
  }
  return ending;
}

/** Watches a shell spawned detached, with stdout and stderr piped, until it ends. */
function superviseShell(child: ChildProcess, options: BoundedOptions): Promise<BoundedEnd> {
  const { scope, signal, drainMs, killGraceMs } = options;
  return new Promise((resolve) => {
    const tail = new OutputTail(options.tailBytes);
    for (const out of [child.stdout, child.stderr]) {
      out?.on('data', tail.push);
      if (options.onOutput !== undefined) out?.on('data', options.onOutput);
    }

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
      const stopped = await stopProcesses(scope, killGraceMs);
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
