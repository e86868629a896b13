// `{out}/index.md`: one row per plan of the batch, read only from the plans' `.md` result files
// (docs/batch.md#indexmd), starting with `[N/M plans complete]`; and the batch's exit code from the same rows.
import { readFile } from 'node:fs/promises';
import { EXIT_CODES } from '../contract.js';
import { oneLine } from './one-line.js';
import { resultPath } from './partial-file.js';
import { formatCost, parseResultFile } from './result-file.js';
import { VERDICT_WORDS } from './findings-index.js';
import type { BatchPlan, PlanRow } from './types.js';

export const INDEX_FILE = 'index.md';
export const REPORT_FILE = 'report.md';

export async function readRows(out: string, plans: BatchPlan[], notes: Map<string, string[]>): Promise<PlanRow[]> {
  const rows: PlanRow[] = [];
  for (const plan of plans) {
    const extra = notes.get(plan.id) ?? [];
    let text: string | null = null;
    try {
      text = await readFile(resultPath(out, plan.id), 'utf8');
    } catch {
      // never launched
    }
    if (text === null) {
      rows.push({ plan: plan.id, outcome: null, exitCode: null, attempts: 0, iterations: null, costUsd: null, verdict: null, prUrl: null, branch: null, commit: null, worktree: null, resultFile: null, warnings: extra });
      continue;
    }
    const row = parseResultFile(plan.id, `${plan.id}.md`, text);
    row.warnings.unshift(...extra);
    rows.push(row);
  }
  return rows;
}

export function countComplete(rows: PlanRow[]): number {
  return rows.filter((r) => r.outcome === 'complete').length;
}

/** 0 all complete; 130 interrupted; else 1 any failed or errored; else 2 any blocked; else 3. */
export function batchExitCode(rows: PlanRow[], interrupted: boolean): number {
  if (interrupted) return EXIT_CODES.interrupted;
  if (rows.every((r) => r.outcome === 'complete')) return EXIT_CODES.complete;
  const failedLike = new Set(['failed', 'exhausted', 'off_rails', 'crashed', 'timed_out', 'invalid']);
  if (rows.some((r) => r.verdict === 'error' || (r.outcome !== null && failedLike.has(r.outcome)))) return EXIT_CODES.failed;
  if (rows.some((r) => r.outcome === 'blocked')) return EXIT_CODES.blocked;
  return EXIT_CODES.exhausted;
}

function cell(text: string): string {
  return oneLine(text, 300);
}

export function renderIndex(batchId: string, rows: PlanRow[], extra: { report: string | null; warnings: string[] }): string {
  const complete = countComplete(rows);
  const lines = [
    `[${complete}/${rows.length} plans complete]`,
    '',
    `# Batch ${batchId}`,
    '',
    '| plan | outcome | attempts | iterations | cost | verdict | branch @ commit / worktree | result |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    const where = r.branch || r.worktree ? `${r.branch ?? '—'}${r.commit ? ` @ ${r.commit.slice(0, 12)}` : ''} / ${r.worktree ?? '—'}` : '—';
    lines.push(
      `| ${cell(r.plan)} | ${r.outcome ?? 'not run'}${r.tasksVerified ? ` (${cell(r.tasksVerified)})` : ''} | ${r.attempts} | ${r.iterations ?? '—'} | ${r.costUsd === null ? '—' : formatCost(r.costUsd)} | ${r.verdict ?? '—'} | ${cell(where)} | ${r.resultFile ? `[${cell(r.resultFile)}](${encodeURI(r.resultFile)})` : '—'} |`,
    );
  }
  const warnings = [...extra.warnings, ...rows.flatMap((r) => r.warnings.map((w) => `${r.plan}: ${w}`))];
  lines.push('', `Verdicts: ${VERDICT_WORDS}.`);
  lines.push('', extra.report ? `Observations report: [${extra.report}](${encodeURI(extra.report)})` : 'Observations report: not written (see warnings)');
  lines.push(...receiptsSection(rows));
  if (warnings.length) lines.push('', '## Warnings', '', ...warnings.map((w) => `- ${oneLine(w, 1000)}`));
  lines.push('');
  return lines.join('\n');
}

/** Each plan's receipt tables, copied from its result file (docs/batch.md#indexmd). */
function receiptsSection(rows: PlanRow[]): string[] {
  const withReceipts = rows.filter((r) => r.receipts?.length);
  if (withReceipts.length === 0) return [];
  const lines = ['', '## Receipts', '', 'Per iteration: time, tokens, cost (`(est.)`: estimated from the price table), decision, checks, rejection; per task: the iterations and cost it took to pass first.'];
  for (const r of withReceipts) lines.push('', `### ${oneLine(r.plan)}`, '', ...r.receipts!);
  return lines;
}
