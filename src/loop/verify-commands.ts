// The plan's `verify` commands, run by the orchestrator itself (docs/plans.md#verify-commands): `sh -c` in the
// working directory, `verify_timeout` at most each (default 10 minutes), the tail of the output
// kept for the agent. A command is finished when its shell exits: whatever it left running
// (`sleep 3600 &`, a `setsid` daemon holding the output pipe) is stopped after a short drain,
// never waited for (docs/hostile.md "Verify commands").
import { DEFAULTS } from '../contract.js';
import { runBoundedShell, type BoundedEnd, type RunShellOptions } from '../executors/bounded-shell.js';
import type { CommandSandbox, SandboxedSpawn } from '../sandbox/types.js';

export interface VerifyOutcome extends Pick<BoundedEnd, 'exitCode' | 'timedOut' | 'aborted'> {
  command: string;
  tail: string;
  durationMs: number;
  /** How many processes the command left behind that were stopped. */
  leftBehind: number;
}

export interface VerifyOptions extends Partial<Pick<RunShellOptions, 'timeoutMs' | 'signal' | 'drainMs' | 'killGraceMs'>> {
  /** Extra environment (RALPH_RUN_ID, so a daemon that left the tree is still found). */
  env?: Record<string, string>;
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

async function spawnVerify(command: string, cwd: string, options: VerifyOptions, started: number, wrapped: SandboxedSpawn | undefined): Promise<VerifyOutcome> {
  const { timeoutMs = DEFAULTS.verifyTimeoutMs, signal, drainMs = DEFAULT_DRAIN_MS, killGraceMs = DEFAULTS.killGraceMs } = options;
  // The sandbox's wrapper runs the command in it; without one, plain `sh -c` with ralph's environment.
  // Nothing a verify command started outlives it.
  const end = await runBoundedShell(wrapped?.program ?? 'sh', wrapped?.args ?? ['-c', command], {
    cwd,
    env: { ...process.env, ...options.env, ...wrapped?.env },
    markerName: VERIFY_MARKER,
    tailBytes: TAIL_BYTES,
    timeoutMs,
    signal,
    drainMs,
    killGraceMs,
    afterStop: () => wrapped?.done(),
    ...(options.sandbox !== undefined ? { onOutput: options.sandbox.noticeOutput } : {}),
  });
  let text = end.output + (end.error ?? '');
  if (end.timedOut) text += `\n[ralph: stopped after the verify timeout of ${Math.round(timeoutMs / 1000)} s]`;
  else if (end.stopped.length > 0 && end.exited) text += `\n[ralph: the command left ${end.stopped.length} process(es) running; they were stopped]`;
  return { command, exitCode: end.exitCode, timedOut: end.timedOut, aborted: end.aborted, tail: text.trimEnd(), durationMs: Date.now() - started, leftBehind: end.stopped.length };
}
