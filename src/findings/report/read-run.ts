// result.json → RunSummary. A missing or unreadable result is not fatal: the run is listed with
// an unknown outcome and the problem is reported.
import { readFileSync } from 'node:fs';
import type { Problem } from '../../errors.js';
import { safeHttpsUrl } from './escape.js';
import { readIterationReceipts, readTaskReceipts } from './read-receipts.js';
import type { RunSandboxSummary, RunSummary } from './types.js';

export type ResultRead = { ok: true; result: Partial<RunSummary> } | { ok: false; problem: Problem };

/** Never throws: a result that cannot be used comes back as a problem to report. Synchronous:
 *  result.json is small, and an async read per run costs more than the parse. */
export function readRunResult(path: string, displayPath: string): ResultRead {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return { ok: false, problem: { file: displayPath, message: `cannot read result.json: ${(error as Error).message}` } };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, problem: { file: displayPath, message: 'result.json is not a JSON object' } };
  }
  return { ok: true, result: toSummary(value as Record<string, unknown>) };
}

function toSummary(o: Record<string, unknown>): Partial<RunSummary> {
  return {
    run: str(o.run) ?? undefined,
    plan: str(o.plan),
    outcome: str(o.outcome),
    exitCode: num(o.exitCode),
    reason: str(o.reason),
    iterations: num(o.iterations),
    bailouts: num(o.bailouts),
    costUsd: num(o.costUsd),
    tasksVerified: str(o.tasksVerified),
    receipts: Array.isArray(o.receipts) ? o.receipts.length : 0,
    costEstimated: Array.isArray(o.receipts) && o.receipts.some((r) => typeof r === 'object' && r !== null && (r as { costEstimated?: unknown }).costEstimated === true),
    iterationReceipts: readIterationReceipts(o.receipts),
    taskReceipts: readTaskReceipts(o.tasks),
    prUrl: safeHttpsUrl(o.prUrl),
    startedAt: str(o.startedAt),
    endedAt: str(o.endedAt),
    sandbox: sandboxOf(o.sandbox),
  };
}

/** The sandbox's refusals, if the run was sandboxed; at most REFUSALS_LISTED of them. */
const REFUSALS_LISTED = 20;
function sandboxOf(v: unknown): RunSandboxSummary | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (o.mode !== 'on') return null;
  const list = Array.isArray(o.refusals) ? o.refusals : [];
  const refusals = list
    .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null)
    .map((r) => ({ what: str(r.what) ?? '?', target: str(r.target) ?? '?', count: num(r.count) ?? 1 }))
    .slice(0, REFUSALS_LISTED);
  return { denied: num(o.denied) ?? refusals.length, refusals };
}

function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null;
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
