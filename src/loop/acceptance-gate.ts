// "Done?" is answered by the orchestrator, not the agent (docs/signals.md#acceptance-gate): the summary file must
// exist, parse, match the schema, name this plan and be fresh; then every verify command must
// pass. The reason is exactly what the next iteration is told.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { checkSummary, MAX_SUMMARY_BYTES } from '../plan/index.js';
import { readRegularFileSync } from '../util/read-regular-file.js';
import { runVerifyCommand } from './verify-commands.js';
import type { CommandSandbox } from '../sandbox/types.js';

export interface GateInput {
  planId: string;
  summaryPath: string;
  requireSummary: boolean;
  verify: string[];
  cwd: string;
  /** The run's original start (ms since the epoch): an older summary is stale. */
  runStartedAtMs: number;
  /** sha256 of a summary that was there before the run and stayed: that content is not this run's. */
  summaryAtStart?: string;
  signal?: AbortSignal;
  verifyTimeoutMs?: number;
  /** Environment for verify commands (RALPH_RUN_ID). */
  env?: Record<string, string>;
  /** The agent's sandbox, which verify commands run in (docs/sandbox.md). */
  sandbox?: CommandSandbox;
}

/** One verify command as the gate ran it: what a pull request's body shows (docs/deliver.md). */
export interface VerifyRecord {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
}

export type GateResult = { complete: true; reason: string; verify?: VerifyRecord[] } | { complete: false; reason: string; verify?: VerifyRecord[] };

/** mtime resolution and clock rounding: a summary written in the run's first milliseconds is fresh. */
const FRESHNESS_SLACK_MS = 5;

export function checkSummaryFile(input: GateInput): GateResult {
  const shown = relative(input.cwd, input.summaryPath) || input.summaryPath;
  let bytes: Buffer;
  try {
    bytes = readRegularFileSync(input.summaryPath, MAX_SUMMARY_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      return { complete: false, reason: `the summary file ${shown} does not exist: write it (JSON, see the summary format) before claiming completion` };
    }
    if (code === 'ENOTREG') return { complete: false, reason: `the summary path ${shown} is not a regular file: write the summary as a plain file there` };
    if (code === 'EFBIG') return { complete: false, reason: `the summary file ${shown} is larger than ${MAX_SUMMARY_BYTES / 1024 / 1024} MB: keep it short` };
    return { complete: false, reason: `the summary file ${shown} cannot be read: ${(error as Error).message}` };
  }
  let info;
  try {
    info = statSync(input.summaryPath);
  } catch {
    return { complete: false, reason: `the summary file ${shown} disappeared while it was read: write it again` };
  }
  if (input.summaryAtStart !== undefined && createHash('sha256').update(bytes).digest('hex') === input.summaryAtStart) {
    return { complete: false, reason: `the summary file ${shown} is the one that was there before this run started: write it again for this run` };
  }
  if (info.mtimeMs + FRESHNESS_SLACK_MS < input.runStartedAtMs) {
    return {
      complete: false,
      reason: `the summary file ${shown} is stale: it was last written at ${info.mtime.toISOString()}, before this run started at ${new Date(input.runStartedAtMs).toISOString()}; write it again for this run`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { complete: false, reason: `the summary file ${shown} is not valid JSON: ${(error as Error).message}` };
  }
  const checked = checkSummary(value, input.planId);
  if (!checked.ok) return { complete: false, reason: `the summary file ${shown} does not match the summary schema: ${checked.reason}` };
  return { complete: true, reason: `summary ${shown} is valid` };
}

export async function acceptanceGate(input: GateInput): Promise<GateResult> {
  const reasons: string[] = [];
  if (input.requireSummary) {
    const summary = checkSummaryFile(input);
    if (!summary.complete) return summary;
    reasons.push(summary.reason);
  }
  const ran: VerifyRecord[] = [];
  for (const command of input.verify) {
    const outcome = await runVerifyCommand(command, input.cwd, {
      ...(input.signal ? { signal: input.signal } : {}),
      ...(input.verifyTimeoutMs !== undefined ? { timeoutMs: input.verifyTimeoutMs } : {}),
      ...(input.env ? { env: input.env } : {}),
      ...(input.sandbox ? { sandbox: input.sandbox } : {}),
    });
    ran.push({ command, exitCode: outcome.exitCode, timedOut: outcome.timedOut, durationMs: outcome.durationMs });
    // A command that timed out fails, whatever it would have exited with.
    if (outcome.exitCode !== 0 || outcome.timedOut || outcome.aborted) {
      const how = outcome.timedOut
        ? `timed out after ${Math.round((input.verifyTimeoutMs ?? outcome.durationMs) / 1000)} s (verify_timeout)`
        : outcome.aborted
          ? 'was stopped because the run was interrupted'
          : outcome.exitCode === null
            ? 'could not run'
            : `exited ${outcome.exitCode}`;
      return {
        complete: false,
        reason: `verify command \`${command}\` ${how}; the tail of its output:\n${outcome.tail || '(no output)'}`,
        verify: ran,
      };
    }
  }
  if (input.verify.length > 0) reasons.push(`${input.verify.length} verify command(s) passed`);
  return { complete: true, reason: reasons.join('; ') || 'completion accepted', ...(ran.length ? { verify: ran } : {}) };
}
