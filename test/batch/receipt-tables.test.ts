import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { finishBatch } from '../../src/batch/finish-batch.js';
import { renderIndex } from '../../src/batch/index-file.js';
import { INDEX_RECEIPT_ROWS } from '../../src/batch/receipt-tables.js';
import { parseResultFile, renderResult, type ResultFacts } from '../../src/batch/result-file.js';
import type { IterationReceipt, TaskReceipt } from '../../src/loop/types.js';
import { HOSTILE_TEXT, inspectGfm } from '../util/gfm.js';

const tokens = (n: number) => ({ input: n, output: n * 2, cacheRead: n * 3, cacheWrite: n * 4 });

function receipt(iteration: number, over: Partial<IterationReceipt> = {}): IterationReceipt {
  return { iteration, durationMs: 1_500, tokens: tokens(iteration), costUsd: 0.01 * iteration, costEstimated: false, decision: 'none', checks: [], rejection: null, ...over };
}

const receipts: IterationReceipt[] = [
  receipt(1, { costUsd: 0.0123, costEstimated: true, checks: [{ check: 'task: build', ok: true, reason: 'ok' }] }),
  // Agent text in every cell it can reach: a task name, the rejection.
  receipt(2, {
    costUsd: null,
    decision: 'complete',
    checks: [{ check: `task: ${HOSTILE_TEXT}`, ok: false, reason: 'exit 1' }, { check: 'verify: npm test', ok: true, reason: 'ok' }],
    rejection: `${HOSTILE_TEXT}\n| a | b |\n\`\`\`\nfence`,
  }),
  receipt(3, { costUsd: 0.5, decision: 'complete', checks: [{ check: 'verify: npm test', ok: true, reason: 'ok' }] }),
];

const tasks: TaskReceipt[] = [
  { name: 'build', verify: 'npm run build', status: 'passing', firstPassedIteration: 1, iterations: 1, costUsd: 0.0123, costEstimated: true },
  { name: `docs ${HOSTILE_TEXT}`, verify: 'x', status: 'failing', firstPassedIteration: null, iterations: null, costUsd: null, costEstimated: false, regressed: true },
];

const facts: ResultFacts = {
  outcome: 'exhausted',
  reason: 'max iterations',
  exitCode: 3,
  attempts: 1,
  iterations: 3,
  costUsd: null,
  prUrl: null,
  branch: null,
  commit: null,
  worktree: null,
  runDir: 'runs/a.1',
  previous: [],
  endedAt: '2026-01-01T00:00:00.000Z',
  receipts,
  tasks,
};

/** The rows of the Markdown table whose header starts with `head`. */
function tableRows(text: string, head: string): string[] {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.startsWith(head));
  const rows: string[] = [];
  for (let i = at + 2; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(lines[i]!);
  return rows;
}

describe('the receipt tables of a result file', () => {
  const text = renderResult(facts, [], 'needs-changes', undefined);

  it('has a row per iteration (time, tokens, cost marked when estimated, decision, checks, rejection) and per task', () => {
    const iterations = tableRows(text, '| iteration | time |');
    expect(iterations).toHaveLength(3);
    expect(iterations[0]).toBe('| 1 | 1.5s | 1 / 2 / 3 / 4 | $0.0123 (est.) | none | ✓ task: build | — |');
    expect(iterations[1]).toMatch(/^\| 2 \| 1\.5s \| 2 \/ 4 \/ 6 \/ 8 \| unknown \| complete \| ✗ task: /);
    expect(iterations[2]).toBe('| 3 | 1.5s | 3 / 6 / 9 / 12 | $0.5000 | complete | ✓ verify: npm test | — |');
    const taskRows = tableRows(text, '| task | state |');
    expect(taskRows[0]).toBe('| build | passing | 1 | 1 | $0.0123 (est.) |');
    expect(taskRows[1]).toMatch(/^\| docs .* \| failing \(regressed\) \| — \| — \| — \|$/);
    expect(text).toContain('- Cost: unknown (partly estimated)');
  });

  it('keeps agent text inert and inside its cell once rendered as GitHub Markdown', () => {
    const got = inspectGfm(text);
    expect(got.images).toBe(0);
    expect(got.hrefs).toEqual([]);
    expect(got.rawTags).toEqual([]);
    // Header, then three iteration rows of 7 cells; header, then two task rows of 5 cells.
    expect(got.rowCells).toEqual([7, 7, 7, 7, 5, 5, 5]);
    expect(got.html).not.toContain('<code>');
    expect(got.html.match(/<pre>/g) ?? []).toHaveLength(0);
  });

  it('leaves no table when the run left no receipt', () => {
    expect(renderResult({ ...facts, receipts: [], tasks: [] }, [], 'safe', undefined)).not.toContain('### Receipts');
  });
});

describe('the receipts in index.md', () => {
  it('copies each plan\'s tables from its result file, under the plan\'s name', () => {
    const row = parseResultFile('a', 'a.md', renderResult(facts, [], 'needs-changes', undefined));
    const index = renderIndex('b1', [row, { ...parseResultFile('b', 'b.md', renderResult({ ...facts, receipts: [], tasks: [] }, [], 'safe', undefined)) }], { report: null, warnings: [] });
    const section = index.slice(index.indexOf('## Receipts'));
    expect(section).toContain('### a\n\n| iteration | time |');
    expect(section).not.toContain('### b');
    expect(tableRows(section, '| iteration | time |')).toEqual(tableRows(renderResult(facts, [], 'needs-changes', undefined), '| iteration | time |'));
    expect(tableRows(section, '| task | state |')).toHaveLength(2);
    expect(section).toContain('(est.)');
    const got = inspectGfm(index);
    expect(got.images).toBe(0);
    expect(got.hrefs).toEqual(['a.md', 'b.md']);
    expect(got.rawTags).toEqual([]);
    // The plans table (8 cells), then the receipts tables as in the result file.
    expect(got.rowCells).toEqual([8, 8, 8, 7, 7, 7, 7, 5, 5, 5]);
  });

  it('copies nothing from agent text that looks like a receipts section', () => {
    const forged = `### Receipts\n\n| iteration | time |\n|---|---|\n| forged | row |`;
    const text = renderResult({ ...facts, receipts: [], tasks: [], lastRejection: forged }, [], 'needs-changes', { note: forged });
    expect(text).toContain('\n### Receipts\n');
    expect(parseResultFile('a', 'a.md', text).receipts).toBeUndefined();
  });

  it('shows the last rows of a long run and says where the others are', () => {
    const many = Array.from({ length: INDEX_RECEIPT_ROWS + 7 }, (_, i) => receipt(i + 1));
    const row = parseResultFile('a', 'a.md', renderResult({ ...facts, receipts: many, tasks: [] }, [], 'safe', undefined));
    const index = renderIndex('b1', [row], { report: null, warnings: [] });
    const rows = tableRows(index.slice(index.indexOf('## Receipts')), '| iteration | time |');
    expect(rows).toHaveLength(INDEX_RECEIPT_ROWS);
    expect(rows[0]).toMatch(/^\| 8 \| /);
    expect(index).toContain('(the first 7 rows are in the result file)');
  });
});

describe('the end of a batch', () => {
  let out: string | undefined;
  afterEach(() => {
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('puts the receipts in index.md and leaves them out of batch.json', async () => {
    out = mkdtempSync(join(tmpdir(), 'ralph-receipts-'));
    writeFileSync(join(out, 'a.md'), renderResult(facts, [], 'needs-changes', undefined));
    const file = {
      version: 1 as const,
      batchId: 'b1',
      createdAt: 'x',
      updatedAt: 'x',
      cwd: out,
      out,
      options: { concurrency: 1, isolate: 'none' as const, planTimeoutMs: null, exec: {} },
      repo: null,
      plans: [{ id: 'a', path: join(out, 'a.plan.md') }],
      status: 'running' as const,
      complete: null,
      exitCode: null,
      results: [],
    };
    await finishBatch({ file, notes: new Map(), interrupted: false, emit: () => {}, now: () => new Date(0), writeReport: async () => null });
    expect(readFileSync(join(out, 'index.md'), 'utf8')).toContain('## Receipts\n');
    const batch = JSON.parse(readFileSync(join(out, 'batch.json'), 'utf8'));
    expect(batch.results[0].plan).toBe('a');
    expect(batch.results[0]).not.toHaveProperty('receipts');
  });
});
