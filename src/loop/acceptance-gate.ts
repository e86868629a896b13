// "Done?" is answered by the orchestrator, not the agent (docs/signals.md#acceptance-gate): the summary file must
// exist, parse, match the schema, name this plan and be fresh; then every verify command must
// pass. The reason is exactly what the next iteration is told.
import { readFileSync, statSync } from 'node:fs';
import { relative } from 'node:path';
import { checkSummary } from '../plan/index.js';
import { runVerifyCommand } from './verify-commands.js';

export interface GateInput {
  planId: string;
  summaryPath: string;
  requireSummary: boolean;
  verify: string[];
  cwd: string;
  /** The run's original start (ms since the epoch): an older summary is stale. */
  runStartedAtMs: number;
  signal?: AbortSignal;
  verifyTimeoutMs?: number;
}

export type GateResult = { complete: true; reason: string } | { complete: false; reason: string };

/** mtime resolution and clock rounding: a summary written in the run's first milliseconds is fresh. */
const FRESHNESS_SLACK_MS = 5;

export function checkSummaryFile(input: GateInput): GateResult {
  const shown = relative(input.cwd, input.summaryPath) || input.summaryPath;
  let info;
  try {
    info = statSync(input.summaryPath);
  } catch {
    return { complete: false, reason: `the summary file ${shown} does not exist: write it (JSON, see the summary format) before claiming completion` };
  }
  if (!info.isFile()) return { complete: false, reason: `the summary path ${shown} is not a file` };
  if (info.mtimeMs + FRESHNESS_SLACK_MS < input.runStartedAtMs) {
    return {
      complete: false,
      reason: `the summary file ${shown} is stale: it was last written at ${info.mtime.toISOString()}, before this run started at ${new Date(input.runStartedAtMs).toISOString()}; write it again for this run`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(input.summaryPath, 'utf8'));
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
  for (const command of input.verify) {
    const outcome = await runVerifyCommand(command, input.cwd, { signal: input.signal, timeoutMs: input.verifyTimeoutMs });
    if (outcome.exitCode !== 0) {
      const how = outcome.timedOut ? 'timed out' : outcome.exitCode === null ? 'could not run' : `exited ${outcome.exitCode}`;
      return {
        complete: false,
        reason: `verify command \`${command}\` ${how}; the tail of its output:\n${outcome.tail || '(no output)'}`,
      };
    }
  }
  if (input.verify.length > 0) reasons.push(`${input.verify.length} verify command(s) passed`);
  return { complete: true, reason: reasons.join('; ') || 'completion accepted' };
}
