// The html report in a real headless Chromium: filters and search work, and nothing an agent
// wrote runs. The browser is found through RALPH_CHROMIUM or PATH (chromium, chromium-browser,
// google-chrome). Where none is found or none starts, the suite skips loudly; under .ci/run,
// which installs Debian's chromium, it fails instead.
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildReport, renderHtml } from '../../../src/findings/report/index.js';
import { BASIC, MALICIOUS, writeManyRuns } from './helpers.js';
import { isRunning as alive } from '../../helpers/processes.js';
import { findProgram, systemDepAvailable } from '../../helpers/system-deps.js';
import { PATIENCE_MS } from '../../helpers/patience.js';

// An inert switch that lets the test find the browser's processes to check they all ended.
const MARKER = `--ralph-report-test=${randomUUID()}`;
const LAUNCH_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', MARKER];
const CHROMIUM = findProgram('RALPH_CHROMIUM', ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']);
const HINT = 'Install a browser (Debian: apt-get install chromium) or point RALPH_CHROMIUM at one; .ci/run installs it.';

async function startProblem(): Promise<string | undefined> {
  if (CHROMIUM === undefined) return process.env.RALPH_CHROMIUM ? `RALPH_CHROMIUM=${process.env.RALPH_CHROMIUM} is not an executable file` : 'no chromium on PATH and RALPH_CHROMIUM not set';
  try {
    const probe = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS, timeout: PATIENCE_MS });
    await probe.close();
    return undefined;
  } catch (error) {
    return `${CHROMIUM} did not start (${String((error as Error).message).split('\n')[0]})`;
  }
}
const BROWSER_RUNS = systemDepAvailable('the real-browser report test', await startProblem(), HINT);

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
  browser = await chromium.launch({ executablePath: CHROMIUM, args: LAUNCH_ARGS });
});

afterAll(async () => {
  if (!BROWSER_RUNS) return;
  const pids = browserPids();
  await browser?.close();
  await vi.waitFor(() => expect(pids.filter(alive)).toEqual([]), { timeout: PATIENCE_MS, interval: 100 });
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

interface Watched {
  page: Page;
  dialogs: string[];
  requests: string[];
  errors: string[];
}

async function open(url: string): Promise<Watched> {
  const page = await browser.newPage();
  const w: Watched = { page, dialogs: [], requests: [], errors: [] };
  page.on('dialog', (d) => {
    w.dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('request', (r) => w.requests.push(r.url()));
  page.on('pageerror', (e) => w.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') w.errors.push(m.text());
  });
  // A string, not a function: this file is compiled without DOM types.
  await page.addInitScript(`
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
  `);
  await page.goto(url, { waitUntil: 'load' });
  return w;
}

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

/** The browser process (found by MARKER) and all its descendants. */
function browserPids(): number[] {
  const parent = new Map<number, number>();
  const roots: number[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(MARKER)) roots.push(pid);
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parent.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited while we looked
    }
  }
  expect(roots.length).toBeGreaterThan(0);
  const all = new Set(roots);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (!all.has(pid) && all.has(ppid)) {
        all.add(pid);
        grew = true;
      }
    }
  }
  return [...all];
}

