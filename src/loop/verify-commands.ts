// The plan's `verify` commands, run by the orchestrator itself (docs/plans.md#verify-commands): `sh -c` in the
// working directory, 10 minutes at most each, the tail of the output kept for the agent.
import { spawn } from 'node:child_process';
import { DEFAULTS } from '../contract.js';
import { terminateProcessGroup } from '../executors/process-group.js';

export interface VerifyOutcome {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  tail: string;
  durationMs: number;
}

const TAIL_BYTES = 4_000;

export function runVerifyCommand(
  command: string,
  cwd: string,
  { timeoutMs = DEFAULTS.verifyTimeoutMs, signal }: { timeoutMs?: number; signal?: AbortSignal } = {},
): Promise<VerifyOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('sh', ['-c', command], { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = Buffer.alloc(0);
    const keep = (d: Buffer) => {
      tail = Buffer.concat([tail, d]);
      if (tail.length > TAIL_BYTES * 2) tail = tail.subarray(tail.length - TAIL_BYTES);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    let timedOut = false;
    const stop = () => {
      if (child.pid !== undefined) void terminateProcessGroup(child.pid, DEFAULTS.killGraceMs);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    signal?.addEventListener('abort', stop, { once: true });
    const finish = (exitCode: number | null, extra = '') => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', stop);
      const text = tail.subarray(Math.max(0, tail.length - TAIL_BYTES)).toString('utf8') + extra;
      resolve({ command, exitCode, timedOut, tail: text.trimEnd(), durationMs: Date.now() - started });
    };
    child.on('error', (e) => finish(null, `cannot run sh: ${e.message}`));
    child.on('close', (code) => finish(code));
  });
}
