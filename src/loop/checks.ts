// The gate is a list of checks (the summary, the plan's verify commands, the protected files, each
// task's own <verify>), each answering { ok, reason, evidence }; the loop runs the list and the
// first that fails is what the next iteration is told (docs/signals.md#acceptance-gate).
import { RALPH_ENV } from '../contract.js';
import type { CommandSandbox } from '../sandbox/types.js';
import { runVerifyCommand, type VerifyOutcome } from './verify-commands.js';

/** One check's verdict, as result.json's receipts record it. */
export interface CheckResult {
  /** What was checked: `summary`, `protected files`, `verify: <command>`, `task: <name>`. */
  check: string;
  ok: boolean;
  /** One line for a person, and what the agent is told when the check fails. */
  reason: string;
  /** The facts behind it: a command's output tail, a diff summary. */
  evidence?: string;
  durationMs?: number;
  /** Stopped because the run was interrupted: not a verdict on the work. */
  aborted?: boolean;
  /** A command check's command, exit code (null: none) and whether it timed out. */
  command?: string;
  exitCode?: number | null;
  timedOut?: boolean;
}

export interface CommandCheckOptions {
  cwd: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Environment for the command (RALPH_RUN_ID). */
  env?: Record<string, string>;
  /** The agent's sandbox, which checks run in too (docs/sandbox.md). */
  sandbox?: CommandSandbox;
}

/**
 * How every check of a run runs, wherever it runs (the first look, after an iteration, at the
 * gate): in the run's tree, with its id in the environment, within verify_timeout, inside the
 * agent's sandbox when there is one, stopped with the run.
 */
export function runCheckOptions(config: { cwd: string; verifyTimeoutMs?: number }, runId: string, signal: AbortSignal | undefined, sandbox: CommandSandbox | undefined): CommandCheckOptions {
  return {
    cwd: config.cwd,
    ...(signal ? { signal } : {}),
    ...(config.verifyTimeoutMs !== undefined ? { timeoutMs: config.verifyTimeoutMs } : {}),
    env: { [RALPH_ENV.runId]: runId },
    ...(sandbox ? { sandbox } : {}),
  };
}

/** How a command that did not pass ended, in words ("exited 3", "timed out after 600 s (verify_timeout)"). */
export function howItFailed(outcome: VerifyOutcome, timeoutMs: number | undefined): string {
  if (outcome.timedOut) return `timed out after ${Math.round((timeoutMs ?? outcome.durationMs) / 1000)} s (verify_timeout)`;
  if (outcome.aborted) return 'was stopped because the run was interrupted';
  if (outcome.exitCode === null) return 'could not run';
  if (outcome.exitCode === 127) return 'exited 127 (command not found: is it a shell command?)';
  return `exited ${outcome.exitCode}`;
}

/** Runs one command through the verify-command runner; it passes when it exits 0 in time. */
export async function runCommandCheck(check: string, command: string, options: CommandCheckOptions): Promise<CheckResult> {
  const outcome = await runVerifyCommand(command, options.cwd, {
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.env ? { env: options.env } : {}),
    ...(options.sandbox ? { sandbox: options.sandbox } : {}),
  });
  // A command that timed out fails, whatever it would have exited with.
  const ok = outcome.exitCode === 0 && !outcome.timedOut && !outcome.aborted;
  const base = { check, ok, command, exitCode: outcome.exitCode, timedOut: outcome.timedOut, durationMs: outcome.durationMs, evidence: outcome.tail, ...(outcome.aborted ? { aborted: true } : {}) };
  if (ok) return { ...base, reason: `\`${command}\` passed` };
  return { ...base, reason: `\`${command}\` ${howItFailed(outcome, options.timeoutMs)}` };
}

/** Runs the checks in order and stops at the first that fails. */
export async function runChecks(checks: (() => CheckResult | Promise<CheckResult>)[]): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const check of checks) {
    const result = await check();
    results.push(result);
    if (!result.ok) break;
  }
  return results;
}
