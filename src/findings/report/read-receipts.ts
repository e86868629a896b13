// The receipts of a run's result.json (docs/files.md#receipts), checked field by field: a result
// can come from anywhere, so whatever is not the documented shape is left out, and agent text
// (check names, rejections, task names) is cut to a length a report can show.
import type { ReportReceipt, ReportTaskReceipt } from './types.js';

/** Receipts kept per run (the last ones): a run of thousands of iterations stays a readable report. */
export const MAX_RECEIPTS_PER_RUN = 200;
const MAX_CHECKS = 50;
const MAX_TEXT = 1_000;

export function readIterationReceipts(v: unknown): ReportReceipt[] {
  if (!Array.isArray(v)) return [];
  const out: ReportReceipt[] = [];
  for (const r of v.slice(-MAX_RECEIPTS_PER_RUN)) {
    if (!isObject(r) || num(r.iteration) === null) continue;
    const tokens = isObject(r.tokens) ? r.tokens : {};
    const checks = Array.isArray(r.checks) ? r.checks : [];
    out.push({
      iteration: num(r.iteration)!,
      durationMs: num(r.durationMs),
      tokens: { input: num(tokens.input) ?? 0, output: num(tokens.output) ?? 0, cacheRead: num(tokens.cacheRead) ?? 0, cacheWrite: num(tokens.cacheWrite) ?? 0 },
      costUsd: num(r.costUsd),
      costEstimated: r.costEstimated === true,
      decision: text(r.decision, 40) ?? 'none',
      checks: checks
        .filter(isObject)
        .slice(0, MAX_CHECKS)
        .map((c) => ({ check: text(c.check, 300) ?? '?', ok: c.ok === true })),
      rejection: text(r.rejection, MAX_TEXT),
    });
  }
  return out;
}

export function readTaskReceipts(v: unknown): ReportTaskReceipt[] {
  if (!Array.isArray(v)) return [];
  return v.filter(isObject).map((t) => ({
    name: text(t.name, 300) ?? '?',
    status: text(t.status, 20) ?? 'pending',
    regressed: t.regressed === true,
    firstPassedIteration: num(t.firstPassedIteration),
    iterations: num(t.iterations),
    costUsd: num(t.costUsd),
    costEstimated: t.costEstimated === true,
  }));
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function text(v: unknown, max: number): string | null {
  return typeof v === 'string' && v !== '' ? v.slice(0, max) : null;
}
