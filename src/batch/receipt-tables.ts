// The receipts of a plan's run as Markdown tables (docs/files.md#receipts): one row per iteration,
// then one per task. Written into the plan's result file under `### Receipts`; index.md copies
// them from there, since the index is built from the result files alone (docs/batch.md#indexmd).
import type { IterationReceipt, TaskReceipt } from '../loop/types.js';
import { markdownLine } from './one-line.js';

export const RECEIPTS_HEADING = '### Receipts';

const NONE = '—';
/** Rows copied into index.md per plan: a run of hundreds of iterations keeps the index readable. */
export const INDEX_RECEIPT_ROWS = 50;

/** `$0.0123`, `$0.0123 (est.)` for an estimate from the price table, `unknown`. */
export function receiptCost(costUsd: number | null, estimated: boolean): string {
  if (costUsd === null) return 'unknown';
  return `$${costUsd.toFixed(4)}${estimated ? ' (est.)' : ''}`;
}

function iterationRow(r: IterationReceipt): string {
  const t = r.tokens;
  const checks = r.checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.check}`).join(', ');
  return `| ${r.iteration} | ${(r.durationMs / 1000).toFixed(1)}s | ${t.input} / ${t.output} / ${t.cacheRead} / ${t.cacheWrite} | ${receiptCost(r.costUsd, r.costEstimated)} | ${markdownLine(r.decision, 40)} | ${markdownLine(checks, 300) || NONE} | ${markdownLine(r.rejection ?? '', 200) || NONE} |`;
}

function taskRow(t: TaskReceipt): string {
  const passed = t.firstPassedIteration === null ? NONE : String(t.firstPassedIteration);
  const cost = t.iterations === null ? NONE : receiptCost(t.costUsd, t.costEstimated);
  return `| ${markdownLine(t.name, 120)} | ${t.status}${t.regressed ? ' (regressed)' : ''} | ${passed} | ${t.iterations ?? NONE} | ${cost} |`;
}

/** The `### Receipts` section: nothing when the run left no receipt. */
export function receiptSection(receipts: readonly IterationReceipt[], tasks: readonly TaskReceipt[]): string[] {
  if (receipts.length === 0 && tasks.length === 0) return [];
  const lines = [RECEIPTS_HEADING, ''];
  if (receipts.length > 0) {
    lines.push('| iteration | time | tokens in / out / cache read / cache write | cost | decision | checks | rejection |', '|---:|---:|---|---:|---|---|---|', ...receipts.map(iterationRow), '');
  }
  if (tasks.length > 0) {
    lines.push('| task | state | first passed in iteration | iterations to pass | cost to pass |', '|---|---|---:|---:|---:|', ...tasks.map(taskRow), '');
  }
  return lines;
}

/** Where ralph's own `### Receipts` heading is: outside a code block (agent text quoted in one could hold the same line). */
function receiptsHeading(lines: readonly string[]): number {
  let fence: string | null = null;
  let at = -1;
  lines.forEach((line, i) => {
    if (fence !== null) {
      if (line === fence) fence = null;
    } else if (/^`{3,}/.test(line)) {
      fence = /^`+/.exec(line)![0];
    } else if (line === RECEIPTS_HEADING) {
      at = i;
    }
  });
  return at;
}

/**
 * The tables of a result file's `### Receipts` section, as written (already escaped), for
 * index.md: table lines only, each table at most INDEX_RECEIPT_ROWS rows (the last ones, which
 * say how the run ended), tables separated by a blank line. Empty when there is no such section.
 */
export function readReceiptTables(lines: readonly string[]): string[] {
  const start = receiptsHeading(lines);
  if (start < 0) return [];
  const tables: string[][] = [];
  let current: string[] | null = null;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('#') || line.startsWith('<!--')) break;
    if (line.startsWith('|') && line.endsWith('|')) {
      if (current === null) tables.push((current = []));
      current.push(line);
    } else {
      current = null;
    }
  }
  const out: string[] = [];
  for (const table of tables) {
    if (out.length > 0) out.push('');
    const [head, rule, ...rows] = table;
    if (head === undefined || rule === undefined) continue;
    const cut = rows.length - INDEX_RECEIPT_ROWS;
    out.push(head, rule, ...rows.slice(Math.max(0, cut)));
    if (cut > 0) out.push('', `(the first ${cut} rows are in the result file)`);
  }
  return out;
}
