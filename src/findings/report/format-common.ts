// Small wording helpers shared by the Markdown and HTML renderers.
import type { Report, RunSummary } from './types.js';

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export function formatCost(usd: number | null): string {
  return usd === null ? '-' : `$${usd.toFixed(2)}`;
}

/** "2 complete, 1 failed" in a stable order. */
export function outcomeLine(report: Report): string {
  const entries = Object.entries(report.summary.outcomes).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.map(([k, n]) => `${n} ${k}`).join(', ');
}

export function runOutcome(run: RunSummary): string {
  return `${run.outcome ?? 'unknown'}${run.tasksVerified ? ` (${run.tasksVerified})` : ''}`;
}

/** Which filters were applied, in words; empty when none. */
export function filterLine(report: Report): string {
  const f = report.filters;
  const parts: string[] = [];
  if (f.minSeverity) parts.push(`severity >= ${f.minSeverity}`);
  if (f.types) parts.push(`type ${f.types.join('/')}`);
  if (f.actions) parts.push(`action ${f.actions.join('/')}`);
  if (f.plans) parts.push(`plan ${f.plans.join('/')}`);
  if (f.since) parts.push(`since ${f.since}`);
  return parts.join(', ');
}

/** The sandbox's refusals of one run, on one line: `write /x/.bashrc; network host:443 ×3`. */
export function refusalsLine(refusals: readonly { what: string; target: string; count: number }[]): string {
  return refusals.map((x) => `${x.what} ${x.target}${x.count > 1 ? ` ×${x.count}` : ''}`).join('; ');
}

/** A receipt's cost to the hundredth of a cent, `(est.)` when estimated from the price table; `-` unknown. */
export function receiptCost(usd: number | null, estimated: boolean): string {
  return usd === null ? '-' : `$${usd.toFixed(4)}${estimated ? ' (est.)' : ''}`;
}

/** A receipt's checks on one line: `✓ verify: npm test, ✗ task: docs`. */
export function checksLine(checks: readonly { check: string; ok: boolean }[]): string {
  return checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.check}`).join(', ');
}

/** `1 / 2 / 3 / 4`: input, output, cache-read and cache-write tokens. */
export function tokensLine(t: { input: number; output: number; cacheRead: number; cacheWrite: number }): string {
  return `${t.input} / ${t.output} / ${t.cacheRead} / ${t.cacheWrite}`;
}

/** `12.3s`, or `-` when unknown. */
export function seconds(ms: number | null): string {
  return ms === null ? '-' : `${(ms / 1000).toFixed(1)}s`;
}
