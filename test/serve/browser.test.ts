// The page of `ralph serve` in a real headless Chromium: it follows a run from running to
// waiting to complete without a reload, shows a hostile transcript as inert text, stops a real
// run with its button, and a second tab or a closed one leaves the server steady.
import { execFileSync, spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/serve/index.js';
import { browserAvailable, closeBrowser, launchBrowser, openPage } from '../helpers/browser.js';
import { ScriptedRun, poll } from './helpers.js';
import { BIN, ROOT } from '../helpers/run-ralph.js';

const RUNS = await browserAvailable('the ralph serve browser tests');
const AGENT = join(ROOT, 'test', 'fixtures', 'serve', 'agent.mjs');

let browser: Browser | undefined;
let dir = '';
let server: RunningServer;

beforeAll(async () => {
  if (RUNS) browser = await launchBrowser();
});
afterAll(async () => {
  await closeBrowser(browser);
});
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-serve-page-'));
  server = await startServer({ cwd: dir, port: 0 });
});
afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const row = (id: string) => `#runs tr[data-key="runs/${id}"]`;

describe.skipIf(!RUNS)('ralph serve in Chromium', () => {
  it('follows a run from running to waiting to complete without a reload', async () => {
    const w = await openPage(browser!, server.url);
    const { page } = w;
    await poll(() => page.textContent('#live')).toBe('live');
    const run = new ScriptedRun(dir, '20261126-020000-aaaa');
    run.start();
    run.nextIteration();
    run.event({ type: 'tool', iteration: 1, name: 'Bash', summary: 'npm test', phase: 'call' });
    await poll(() => page.getAttribute(row(run.id), 'data-state')).toBe('running');
    // What the agent says shows up while it runs, with no other file changing.
    run.say('Running the tests now.\n');
    await poll(() => page.textContent(`${row(run.id)} .words`)).toBe('Running the tests now.');
    expect(await page.textContent(`${row(run.id)} .tool`)).toMatch(/^Bash\(npm test\) · \d+s$/);
    expect(await page.textContent(`${row(run.id)} .iteration`)).toBe('1 of 5');

    run.event({ type: 'warning', iteration: 1, message: 'a warning' });
    run.status('waiting', { waitingUntil: new Date(Date.now() + 2 * 3_600_000).toISOString(), waitingFor: 'usage limit' });
    await poll(() => page.getAttribute(row(run.id), 'data-state')).toBe('waiting');
    expect(await page.textContent(`${row(run.id)} .state`)).toMatch(/^waiting (1h 59m|2h 0m) \(usage limit\)$/);
    expect(await page.textContent(`${row(run.id)} .notes`)).toBe('1 warning');

    // Per-task states, when STATUS.json carries them.
    run.status('verifying', { tasksVerified: 'tasks 1/2 verified', tasks: [{ name: 'Task 1: build', status: 'passing', firstPassedIteration: 1 }, { name: 'Task 2: test', status: 'pending', firstPassedIteration: null }] });
    await poll(() => page.getAttribute(row(run.id), 'data-state')).toBe('verifying');
    expect(await page.textContent(`${row(run.id)} .tasks`)).toBe('1/2 verified');
    run.finish('complete', 'PLAN_COMPLETE accepted: 1 verify command(s) passed');
    await poll(() => page.getAttribute(row(run.id), 'data-state')).toBe('done');
    expect(await page.textContent(`${row(run.id)} .outcome`)).toBe('complete');
    expect(await page.textContent(`${row(run.id)} .reason`)).toBe('PLAN_COMPLETE accepted: 1 verify command(s) passed');
    expect(await page.evaluate('window.__loadedOnce')).toBe(true);
    expect(w.errors).toEqual([]);
    // The morning report is one click away, its own script running under its own policy.
    run.event({ type: 'observation', iteration: 1, record: { valid: true, type: 'bug', severity: 'high', title: 'Refill overflows', file: null } });
    appendFileSync(run.paths.findings, `${JSON.stringify({ run: run.id, plan: 'demo', iteration: 1, at: new Date().toISOString(), valid: true, type: 'bug', severity: 'high', title: 'Refill overflows', detail: 'd', file: null, action: 'needs-fix' })}\n`);
    await page.click('#report-link');
    await poll(() => page.textContent('#shown')).toBe('1 of 1 shown');
    expect(await page.locator('#findings-table summary').allTextContents()).toEqual(['Refill overflows']);
    expect(await page.evaluate('window.__violations')).toEqual([]);
    expect(w.errors).toEqual([]);
    await page.close();
  });

  it('shows a hostile transcript and hostile run data as inert text, a 10 MB line included', async () => {
    const run = new ScriptedRun(dir, '20261126-020000-evil', '<img src=x onerror=alert(1)>');
    run.start();
    run.nextIteration();
    run.event({ type: 'warning', iteration: 1, message: '<script>window.__pwned = 3</script>' });
    run.event({ type: 'observation', iteration: 1, record: { valid: true, type: 'bug', severity: 'high', title: '<iframe src="javascript:alert(4)">', file: null } });
    run.say('<script>window.__pwned = 1; alert(1)</script>\n\x1b[2J\x1b]0;title\x07\x1b[31mred\x1b[0m words\n');
    const url = `${server.url}run?key=${encodeURIComponent(`runs/${run.id}`)}`;
    const w = await openPage(browser!, url);
    const { page } = w;
    await poll(() => page.locator('#transcript div').allTextContents()).toEqual(['<script>window.__pwned = 1; alert(1)</script>', 'red words']);
    // A 10 MB line while the page follows, then more words.
    const big = Buffer.alloc(10 * 1024 * 1024, 'A');
    run.say(big);
    run.say('\n<img src=x onerror="window.__pwned=2">after the big line\n');
    await poll(() => page.locator('#transcript div').last().textContent()).toBe('<img src=x onerror="window.__pwned=2">after the big line');
    const texts = await page.locator('#transcript div').allTextContents();
    expect(texts.join('\n').length).toBeLessThan(200_000);
    expect(texts.some((t) => /^\[(a line of \d+ bytes, too long to show|output arrived faster than shown.*)\]$/.test(t))).toBe(true);
    expect(await page.textContent('#summary')).toContain('<script>window.__pwned = 3</script>');
    expect(await page.locator('#findings td', { hasText: '<iframe src="javascript:alert(4)">' }).count()).toBe(1);
    expect(await page.locator('#summary dd').first().textContent()).toBe('/r/plans/<img src=x onerror=alert(1)>.md');
    expect(await page.evaluate('typeof window.__pwned')).toBe('undefined');
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.locator('main img, main iframe').count()).toBe(0);
    expect(w.dialogs).toEqual([]);
    expect(w.errors).toEqual([]);
    expect(await page.evaluate('window.__violations')).toEqual([]);
    expect(w.requests.every((r) => r.startsWith(server.url))).toBe(true);
    // The server still answers.
    expect((await fetch(`${server.url}app.css`)).status).toBe(200);
    await page.close();
  });

  it('stops a real run after its iteration with the stop button', async () => {
    writeFileSync(join(dir, 'plan.md'), '---\nmax_iterations: 10000\nmax_stalls: 0\n---\n# forever\n\n<!-- agent: forever -->\n\n<tasks>\n<task><name>only</name><action>do it</action></task>\n</tasks>\n');
    copyFileSync(AGENT, join(dir, 'agent.mjs'));
    execFileSync('git', ['init', '-q'], { cwd: dir });
    const child = spawn(process.execPath, [BIN, 'exec', 'plan.md', '--', process.execPath, 'agent.mjs'], { cwd: dir, stdio: 'ignore' });
    const exited = new Promise<number | null>((r) => child.on('close', r));
    try {
      const runs = join(dir, '.ralph', 'runs');
      await poll(() => (readdirSafe(runs)[0] ? 1 : 0)).toBe(1);
      const id = readdirSafe(runs)[0]!;
      const w = await openPage(browser!, `${server.url}run?key=runs/${id}`);
      const { page } = w;
      await poll(() => page.isEnabled('#stop')).toBe(true);
      await page.click('#stop');
      await poll(() => page.textContent('#stop-message')).toBe(`asked run ${id} to stop after its current iteration`);
      expect(await exited).toBe(130);
      await poll(() => page.textContent('#summary .outcome')).toBe('interrupted');
      expect(await page.isEnabled('#stop')).toBe(false);
      await poll(() => page.locator('#files pre[data-file="result.json"]').count()).toBe(1);
      expect(w.errors).toEqual([]);
      await page.close();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('keeps the server steady with a second tab and a closed one', async () => {
    const run = new ScriptedRun(dir, '20261126-020000-tabs');
    run.start();
    run.nextIteration();
    const a = await openPage(browser!, server.url);
    const b = await openPage(browser!, server.url);
    const c = await openPage(browser!, `${server.url}run?key=runs/${run.id}`);
    await poll(() => server.clients()).toBe(3);
    await b.page.close();
    await c.page.close();
    await poll(() => server.clients()).toBe(1);
    run.status('waiting', { waitingUntil: new Date(Date.now() + 60_000).toISOString(), waitingFor: 'rate limit' });
    await poll(() => a.page.getAttribute(row(run.id), 'data-state')).toBe('waiting');
    const d = await openPage(browser!, server.url);
    await poll(() => d.page.getAttribute(row(run.id), 'data-state')).toBe('waiting');
    expect(server.clients()).toBe(2);
    expect([...a.errors, ...d.errors]).toEqual([]);
    await a.page.close();
    await d.page.close();
    await poll(() => server.clients()).toBe(0);
  });
});

function readdirSafe(p: string): string[] {
  try {
    mkdirSync(p, { recursive: true });
    return readdirSync(p).filter((n) => !n.startsWith('.'));
  } catch {
    return [];
  }
}
