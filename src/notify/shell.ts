// One shell command for a hook or a notification target: `sh -c` in a folder, JSON on stdin,
// facts in the environment, bounded in time, its whole process group stopped when it overruns.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { terminateProcessGroup } from '../executors/process-group.js';
import { OutputTail } from '../util/output-tail.js';

export interface ShellOutcome {
  exitCode: number | null;
  timedOut: boolean;
  /** The end of what it wrote (stdout and stderr together). */
  tail: string;
  /** Set when sh could not be started at all. */
  error?: string;
}

const TAIL_BYTES = 2_000;
const KILL_GRACE_MS = 2_000;

export function runShell(
  command: string,
  options: { cwd: string; env: NodeJS.ProcessEnv; stdin: string; timeoutMs: number; signal?: AbortSignal },
): Promise<ShellOutcome> {
  return new Promise((resolve) => {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = spawn('sh', ['-c', command], { cwd: options.cwd, env: options.env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ exitCode: null, timedOut: false, tail: '', error: (error as Error).message });
      return;
    }
    const tail = new OutputTail(TAIL_BYTES);
    child.stdout.on('data', tail.push);
    child.stderr.on('data', tail.push);
    // A command that does not read its stdin closes the pipe early: that is not a failure.
    child.stdin.on('error', () => {});
    child.stdin.end(options.stdin);
    let timedOut = false;
    const stop = () => {
      if (child.pid !== undefined) void terminateProcessGroup(child.pid, KILL_GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    options.signal?.addEventListener('abort', stop, { once: true });
    let done = false;
    const finish = (exitCode: number | null, error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
      const text = tail.text().trimEnd();
      resolve({ exitCode, timedOut, tail: text, ...(error !== undefined ? { error } : {}) });
    };
    child.on('error', (e) => finish(null, `cannot run sh: ${e.message}`));
    child.on('close', (code) => finish(code));
  });
}
