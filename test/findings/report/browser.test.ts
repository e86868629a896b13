// The html report in a real headless Chromium: filters and search work, and nothing an agent
// wrote runs. The browser is test/helpers/browser.ts's (skipped loudly where none starts; a
// failure under .ci/run, which installs Debian's chromium).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, renderHtml } from '../../../src/findings/report/index.js';
import { BASIC, MALICIOUS, writeManyRuns } from './helpers.js';
import { browserAvailable, closeBrowser, launchBrowser, openPage } from '../../helpers/browser.js';
const BROWSER_RUNS = await browserAvailable('the real-browser report test');

let browser: Browser;
let tmp = '';
let basicUrl = '';
let evilUrl = '';
let bigUrl = '';

beforeAll(async () => {
  if (!BROWSER_RUNS) return;
  tmp = await mkdtemp(join(tmpdir(), 'ralph-report-browser-'));
  const basic = join(tmp, 'basic.html');
  const evil = join(tmp, 'evil.html');
  await writeFile(basic, renderHtml(await buildReport({ runsDir: BASIC })));
  await writeFile(evil, renderHtml(await buildReport({ runsDir: MALICIOUS })));
  basicUrl = pathToFileURL(basic).href;
  evilUrl = pathToFileURL(evil).href;
  // 30 runs x 40 findings + 29 recurring: more rows than one page of the table.
  const bigRuns = join(tmp, 'big-runs');
  await writeManyRuns(bigRuns, 30, 40);
  const big = join(tmp, 'big.html');
  await writeFile(big, renderHtml(await buildReport({ runsDir: bigRuns })));
  bigUrl = pathToFileURL(big).href;
  browser = await launchBrowser();
});

afterAll(async () => {
  if (!BROWSER_RUNS) return;
  await closeBrowser(browser);
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

const open = (url: string) => openPage(browser, url);

const visibleRows = (page: Page) => page.locator('#findings-table tbody tr:visible');

describe.skipIf(!BROWSER_RUNS)('html report in Chromium', () => {
  it('filters rows by severity, type, action and plan, and searches text', async () => {
    const { page, errors } = await open(basicUrl);
    await expect.poll(() => page.textContent('#shown')).toBe('7 of 7 shown');
    expect(await visibleRows(page).count()).toBe(7);

    await page.selectOption('#f-severity', 'high');
    expect(await visibleRows(page).count()).toBe(2);
    expect(await page.textContent('#shown')).toBe('2 of 7 shown');
    await page.selectOption('#f-type', 'test-failed');
    expect(await visibleRows(page).locator('summary').allTextContents()).toEqual(['Flaky auth test']);

    await page.selectOption('#f-severity', '');
    await page.selectOption('#f-type', '');
    await page.selectOption('#f-plan', 'beta');
    expect(await visibleRows(page).locator('td:nth-child(5)').allTextContents()).toEqual(['src/parser.ts', 'src/lexer.ts', 'src/config.ts']);
    await page.selectOption('#f-action', 'needs-plan');
    expect(await visibleRows(page).count()).toBe(1);

    await page.selectOption('#f-plan', '');
    await page.selectOption('#f-action', '');
    // Search reaches the collapsed detail text too, case-insensitively.
    await page.fill('#f-search', 'LOCKFILE');
    expect(await visibleRows(page).locator('summary').allTextContents()).toEqual(['Old lodash version']);
    await page.fill('#f-search', 'parser');
    expect(await visibleRows(page).count()).toBe(2);
    await page.fill('#f-search', 'no such text anywhere');
    expect(await visibleRows(page).count()).toBe(0);
    await page.fill('#f-search', '');
    expect(await visibleRows(page).count()).toBe(7);

    // Details expand on click.
    const first = page.locator('#findings-table tbody tr').first();
    expect(await first.locator('.detail').isVisible()).toBe(false);
    await first.locator('summary').click();
    expect(await first.locator('.detail').textContent()).toBe('latest critical detail');
    expect(await first.locator('.detail').isVisible()).toBe(true);

    expect(await page.locator('#severity-chart rect').count()).toBe(5);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows each run\'s receipts folded, iterations and tasks, estimates marked', async () => {
    const { page, errors } = await open(basicUrl);
    const run = page.locator('details.receipts', { hasText: 'run-a' });
    expect(await run.locator('table.iterations').isVisible()).toBe(false);
    await run.locator('summary').click();
    const rows = run.locator('table.iterations tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await rows.nth(1).locator('td').allTextContents()).toEqual([
      '2', '42.5s', '300 / 60 / 900 / 0', '$0.5000 (est.)', 'complete', '✓ summary, ✓ verify: npm test, ✓ task: parser, ✗ task: docs', 'task docs: test -f docs/parser.md exited 1',
    ]);
    expect(await rows.nth(0).locator('abbr').getAttribute('title')).toBe('estimated from the price table');
    expect(await run.locator('table.tasks tbody tr').first().locator('td').allTextContents()).toEqual(['parser', 'passing', '2', '2', '$0.7500 (est.)']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('runs nothing from the findings, loads nothing, and keeps the text visible as text', async () => {
    const w = await open(evilUrl);
    const { page } = w;
    await expect.poll(() => page.textContent('#shown')).toBe('6 of 6 shown');

    // Poke every element an injected handler could hang on.
    for (const summary of await page.locator('summary').all()) await summary.click();
    for (const cell of await page.locator('td').all()) await cell.hover();
    await page.fill('#f-search', 'pwned');
    await page.selectOption('#f-plan', '</script><script>window.__pwned=8</script>');
    expect(await visibleRows(page).count()).toBe(4);

    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    expect(w.dialogs).toEqual([]);
    expect(w.requests).toEqual([evilUrl]);
    expect(await page.evaluate('window.__violations')).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(await page.locator('script').count()).toBe(2);
    expect(await page.locator('img, iframe, svg:not(#severity-chart), style').count()).toBe(1); // our <style> only
    expect(await page.locator('summary', { hasText: '<script>window.__pwned = 1</script>' }).count()).toBe(1);
    // Receipts: a rejection, a check, a decision and a task name an agent wrote, shown as text.
    const receipts = page.locator('details.receipts', { hasText: 'evil-3' });
    expect(await receipts.locator('table.iterations td').nth(6).textContent()).toContain('<script>window.__pwned=23</script>');
    expect(await receipts.locator('table.iterations td').nth(4).textContent()).toMatch(/^<b onmouseover="window.__pwned=22">/);
    expect(await receipts.locator('table.tasks td').first().textContent()).toBe('</script><script>window.__pwned=21</script>');
    // javascript: and http: PR urls are not links; the https one is.
    expect(await page.locator('#runs-table a').evaluateAll((as) => as.map((a) => (a as unknown as { protocol: string }).protocol))).toEqual(['https:']);
    await page.close();
  });
});

describe.skipIf(!BROWSER_RUNS)('html report of many findings in Chromium', () => {
  it('shows a page of rows at a time, and filters and searches all of them', async () => {
    const { page, errors } = await open(bigUrl);
    const total = 30 * 40 + 29;
    await expect.poll(() => page.textContent('#shown')).toBe(`500 of ${total} shown (${total} match the filters)`);
    expect(await visibleRows(page).count()).toBe(500);
    // Most severe and most seen first.
    expect(await visibleRows(page).first().locator('summary').textContent()).toBe('Recurring 0');
    await page.click('#more');
    expect(await visibleRows(page).count()).toBe(1000);
    await page.click('#more');
    expect(await visibleRows(page).count()).toBe(total);
    expect(await page.isHidden('#more')).toBe(true);
    expect(await page.textContent('#shown')).toBe(`${total} of ${total} shown`);

    // Search reaches findings that were never on the first page.
    await page.fill('#f-search', 'detail of finding 29-39');
    expect(await visibleRows(page).locator('summary').allTextContents()).toEqual(['Finding 29-39']);
    await page.fill('#f-search', '');
    await page.selectOption('#f-severity', 'info');
    await page.selectOption('#f-plan', 'plan-2');
    // info: i % 5 === 4 (8 of 40 per run); plan-2: runs 2, 5, ..., 29 (10 runs).
    expect(await page.textContent('#shown')).toBe(`80 of ${total} shown`);
    expect(await visibleRows(page).count()).toBe(80);
    expect(errors).toEqual([]);
    await page.close();
  });
});
