// The plan's `verify` commands, run by the orchestrator itself (docs/plans.md#verify-commands): `sh -c` in the
// working directory, `verify_timeout` at most each (default 10 minutes), the tail of the output
// kept for the agent. A command is finished when its shell exits: whatever it left running
// (`sleep 3600 &`, a `setsid` daemon holding the output pipe) is stopped after a short drain,
// never waited for (docs/hostile.md "Verify commands").
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { DEFAULTS } from '../contract.js';
import { stopProcesses, type FindOptions } from '../executors/process-tree.js';
import { OutputTail } from '../util/output-tail.js';
import type { CommandSandbox, SandboxedSpawn } from '../sandbox/types.js';

export interface VerifyOutcome {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  /** Stopped because the run was interrupted. */
  aborted: boolean;
  tail: string;
  durationMs: number;
  /** How many processes the command left behind that were stopped. */
  leftBehind: number;
}

export interface VerifyOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Extra environment (RALPH_RUN_ID, so a daemon that left the tree is still found). */
  env?: Record<string, string>;
  /** After the shell exits, how long its output may stay open before what holds it is stopped. */
  drainMs?: number;
  killGraceMs?: number;
  /** The agent's sandbox: verify commands run the agent's code, so they run in it too (docs/sandbox.md). */
  sandbox?: CommandSandbox;
}

const TAIL_BYTES = 4_000;
const DEFAULT_DRAIN_MS = 1_000;
/** Marks every process a verify command starts, whatever it does to its process group. */
const VERIFY_MARKER = 'RALPH_VERIFY_ID';

export async function runVerifyCommand(command: string, cwd: string, options: VerifyOptions = {}): Promise<VerifyOutcome> {
  const started = Date.now();
  let wrapped: SandboxedSpawn | undefined;
  if (options.sandbox !== undefined) {
    try {
      wrapped = await options.sandbox.wrapShell(command);
    } catch (error) {
      const tail = `[ralph: cannot start the command in the sandbox: ${(error as Error).message}]`;
      return { command, exitCode: null, timedOut: false, aborted: false, tail, durationMs: Date.now() - started, leftBehind: 0 };
    }
  }
  return spawnVerify(command, cwd, options, started, wrapped);
}

function spawnVerify(command: string, cwd: string, options: VerifyOptions, started: number, wrapped: SandboxedSpawn | undefined): Promise<VerifyOutcome> {
  const { timeoutMs = DEFAULTS.verifyTimeoutMs, signal, drainMs = DEFAULT_DRAIN_MS, killGraceMs = DEFAULTS.killGraceMs } = options;
  const marker = { name: VERIFY_MARKER, value: randomBytes(8).toString('hex') };
  return new Promise((resolve) => {
    const child = spawn(wrapped?.program ?? 'sh', wrapped?.args ?? ['-c', command], {
      cwd,
      env: { ...process.env, ...options.env, ...wrapped?.env, [marker.name]: marker.value },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const scope: FindOptions = { ...(child.pid !== undefined ? { roots: [child.pid], groups: [child.pid] } : {}), marker };
    const tail = new OutputTail(TAIL_BYTES);
    child.stdout.on('data', tail.push);
    child.stderr.on('data', tail.push);
    if (options.sandbox !== undefined) {
      child.stdout.on('data', options.sandbox.noticeOutput);
      child.stderr.on('data', options.sandbox.noticeOutput);
    }
    let timedOut = false;
    let aborted = false;
    let exitCode: number | null = null;
    let exited = false;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;

    const finish = async (extra = '') => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      signal?.removeEventListener('abort', onAbort);
      // Nothing a verify command started outlives it.
      const left = await stopProcesses(scope, killGraceMs);
      wrapped?.done();
      child.stdout.destroy();
      child.stderr.destroy();
      let text = tail.text() + extra;
      if (timedOut) text += `\n[ralph: stopped after the verify timeout of ${Math.round(timeoutMs / 1000)} s]`;
      else if (left.length > 0 && exited) text += `\n[ralph: the command left ${left.length} process(es) running; they were stopped]`;
      resolve({ command, exitCode: timedOut || aborted ? null : exitCode, timedOut, aborted, tail: text.trimEnd(), durationMs: Date.now() - started, leftBehind: left.length });
    };
    const timer = setTimeout(() => {
      timedOut = true;
      void finish();
    }, timeoutMs);
    const onAbort = () => {
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
