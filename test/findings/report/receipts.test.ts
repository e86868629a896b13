// Receipts in the report (docs/files.md#receipts): per iteration and per task, in every format,
// estimates marked, agent text inert. The html is also opened in Chromium (browser.test.ts).
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, renderHtml, renderJson, renderMarkdown, type Report } from '../../../src/findings/report/index.js';
import { MAX_RECEIPTS_PER_RUN } from '../../../src/findings/report/read-receipts.js';
import { MD_RECEIPT_ROWS } from '../../../src/findings/report/render-markdown.js';
import { BASIC, MALICIOUS } from './helpers.js';
import { inspectGfm } from '../../util/gfm.js';

let basic: Report;
let evil: Report;
let long: Report;
let tmp = '';
beforeAll(async () => {
  basic = await buildReport({ runsDir: BASIC });
  evil = await buildReport({ runsDir: MALICIOUS });
  tmp = await mkdtemp(join(tmpdir(), 'ralph-report-receipts-'));
  await mkdir(join(tmp, 'r1'));
  const receipts = Array.from({ length: MAX_RECEIPTS_PER_RUN + 5 }, (_, i) => ({
    iteration: i + 1, durationMs: 1000, tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, costUsd: 0.01, costEstimated: false, decision: 'none', checks: [], rejection: null,
  }));
  await writeFile(join(tmp, 'r1', 'result.json'), JSON.stringify({ run: 'r1', plan: 'p', outcome: 'exhausted', iterations: receipts.length, costUsd: 2.05, receipts }));
  long = await buildReport({ runsDir: tmp });
});
afterAll(async () => {
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const runA = () => basic.runs.find((r) => r.run === 'run-a')!;

describe('receipts in the report', () => {
  it('reads each iteration\'s and each task\'s receipt from result.json, and leaves out what is not one', () => {
    expect(runA().iterationReceipts!.map((r) => [r.iteration, r.durationMs, r.costUsd, r.costEstimated, r.decision, r.checks.length, r.rejection])).toEqual([
      [1, 61000, 0.25, true, 'none', 2, null],
      [2, 42500, 0.5, true, 'complete', 4, 'task docs: test -f docs/parser.md exited 1'],
      [3, 30000, 0.5, true, 'complete', 4, null],
    ]);
    expect(runA().iterationReceipts![0]!.tokens).toEqual({ input: 400, output: 80, cacheRead: 1000, cacheWrite: 200 });
    expect(runA().taskReceipts!.map((t) => [t.name, t.status, t.firstPassedIteration, t.iterations, t.costUsd])).toEqual([
      ['parser', 'passing', 2, 2, 0.75],
      ['docs', 'passing', 3, 3, 1.25],
    ]);
    // evil-3 has a receipt without an iteration number and one that is not an object.
    expect(evil.runs.find((r) => r.run === 'evil-3')!.iterationReceipts).toHaveLength(1);
    // A run without receipts has no such fields; a long run keeps its last ones.
    expect(basic.runs.find((r) => r.run === 'run-b')).not.toHaveProperty('iterationReceipts');
    expect(long.runs[0]!.iterationReceipts).toHaveLength(MAX_RECEIPTS_PER_RUN);
    expect(long.runs[0]!.iterationReceipts![0]!.iteration).toBe(6);
    expect(JSON.parse(renderJson(basic)).runs.find((r: { run: string }) => r.run === 'run-a').taskReceipts).toHaveLength(2);
  });

  it('md: a table per run of its iterations and one of its tasks, estimates marked', () => {
    const md = renderMarkdown(basic);
    const section = md.slice(md.indexOf('### Receipts'), md.indexOf('### Run outcomes'));
    expect(section).toContain('**run-a** · alpha · complete \\(tasks 2/2 verified\\)');
    expect(section).toContain('| 1 | 61.0s | 400 / 80 / 1000 / 200 | $0.2500 (est.) | none | ✗ task: parser, ✗ task: docs | - |');
    expect(section).toContain('| 2 | 42.5s | 300 / 60 / 900 / 0 | $0.5000 (est.) | complete | ✓ summary, ✓ verify: npm test, ✓ task: parser, ✗ task: docs | task docs: test -f docs/parser.md exited 1 |');
    expect(section).toContain('| parser | passing | 2 | 2 | $0.7500 (est.) |');
    expect(section).toContain('| docs | passing | 3 | 3 | $1.2500 (est.) |');
    const got = inspectGfm(section);
    expect(got.rowCells).toEqual([7, 7, 7, 7, 5, 5, 5]);
  });

  it('md: agent text in a receipt stays in its cell, inert', () => {
    const md = renderMarkdown(evil);
    const section = md.slice(md.indexOf('### Receipts'), md.indexOf('### Run outcomes'));
    const got = inspectGfm(section);
    expect(got.images).toBe(0);
    expect(got.hrefs).toEqual([]);
    expect(got.rawTags).toEqual([]);
    expect(got.rowCells).toEqual([7, 7, 5, 5]);
    expect(got.text).toContain('<script>window.__pwned=23</script>');
    expect(got.text).not.toContain('@everyone');
  });

  it('md: a long run lists its last iterations and says how many more there are', () => {
    const md = renderMarkdown(long);
    const rows = md.split('\n').filter((l) => /^\| \d+ \| 1\.0s \|/.test(l));
    expect(rows).toHaveLength(MD_RECEIPT_ROWS);
    expect(rows[0]).toMatch(new RegExp(`^\\| ${MAX_RECEIPTS_PER_RUN + 5 - MD_RECEIPT_ROWS + 1} \\|`));
    expect(md).toContain(`...${MAX_RECEIPTS_PER_RUN - MD_RECEIPT_ROWS} earlier iterations not listed`);
  });

  it('html: every receipt of every run, estimates marked, agent text escaped', () => {
    const html = renderHtml(basic);
    expect(html).toContain('<details class="receipts"><summary>run-a &middot; alpha &middot; complete (tasks 2/2 verified) &middot; 3 receipts</summary>');
    expect(html).toContain('<td class="num">$0.2500 <abbr title="estimated from the price table">(est.)</abbr></td>');
    expect(html).toContain('<tr><td>parser</td><td>passing</td><td class="num">2</td><td class="num">2</td><td class="num">$0.7500 <abbr');
    const page = renderHtml(evil);
    expect(page).toContain('&lt;script&gt;window.__pwned=23&lt;/script&gt;');
    expect(page).toContain('&lt;/script&gt;&lt;script&gt;window.__pwned=21&lt;/script&gt;');
    expect(page).not.toMatch(/<script>window|<img|<b onmouseover/);
    expect(renderHtml(long).match(/<tr><td class="num">\d+<\/td><td class="num">1\.0s/g)).toHaveLength(MAX_RECEIPTS_PER_RUN);
  });
});
