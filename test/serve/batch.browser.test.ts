// `ralph serve` (the built CLI) while `ralph batch` runs three plans with a scripted agent: in
// headless Chromium the page shows the three plans running, then each one's outcome as it ends,
// without a reload; the plan whose agent printed a <script> element shows it as text.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserAvailable, closeBrowser, launchBrowser, openPage } from '../helpers/browser.js';
import { poll } from './helpers.js';
import { startServeCli } from './serve-cli.js';
import { PATIENCE_MS } from '../helpers/patience.js';
import { BIN, ROOT } from '../helpers/run-ralph.js';

const RUNS = await browserAvailable('the ralph serve batch test');
const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };

let browser: Browser | undefined;
beforeAll(async () => {
  if (RUNS) browser = await launchBrowser();
});
afterAll(async () => {
  await closeBrowser(browser);
});

function plan(behaviour: string): string {
  return `---\nmax_iterations: 2\n---\n# plan\n\n<!-- agent: ${behaviour} -->\n\n<tasks>\n<task><name>only</name><action>do it</action></task>\n</tasks>\n`;
}

describe.skipIf(!RUNS)('ralph serve during a batch', () => {
  it('shows three plans changing state live, ending with their outcomes; a <script> an agent printed is text', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-serve-batch-'));
    const repo = join(dir, 'repo');
    const gate = join(dir, 'gate');
    mkdirSync(join(repo, 'plans'), { recursive: true });
    mkdirSync(gate);
    writeFileSync(join(repo, 'plans', 'a.md'), plan('complete'));
    writeFileSync(join(repo, 'plans', 'b.md'), plan('script'));
    writeFileSync(join(repo, 'plans', 'c.md'), plan('fail'));
    copyFileSync(join(ROOT, 'test', 'fixtures', 'serve', 'agent.mjs'), join(repo, 'agent.mjs'));
    writeFileSync(join(repo, '.gitignore'), '.ralph/\n');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env: { ...process.env, ...GIT_ENV }, stdio: 'ignore' });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'plans');
    const serve = await startServeCli(repo);
    const batch = spawn(process.execPath, [BIN, 'batch', 'plans', '--concurrency', '3', '--', process.execPath, 'agent.mjs'], {
      cwd: repo,
      env: { ...process.env, ...GIT_ENV, RALPH_TEST_GATE: gate },
      stdio: 'ignore',
    });
    const ended = new Promise<number | null>((r) => batch.on('close', r));
    try {
      const w = await openPage(browser!, serve.url);
      const { page } = w;
      // Each look is short; the polls wait as long as a busy machine needs.
      const look = { timeout: 1_000 };
      const state = (id: string) => page.getAttribute(`section.batch tr[data-plan="${id}"]`, 'data-state', look).catch(() => null);
      const outcome = (id: string) => page.textContent(`section.batch tr[data-plan="${id}"] .outcome`, look).catch(() => null);
      for (const id of ['a', 'b', 'c']) await poll(() => state(id), { timeout: PATIENCE_MS }).toBe('running');

      writeFileSync(join(gate, 'a'), '');
      await poll(() => state('a'), { timeout: PATIENCE_MS }).toBe('done');
      expect(await outcome('a')).toBe('complete');
      expect([await state('b'), await state('c')]).toEqual(['running', 'running']);

      // b's agent printed a <script>: as text on the overview, as what it said last,
      await poll(() => page.textContent('section.batch tr[data-plan="b"] .words', look).catch(() => null), { timeout: PATIENCE_MS }).toBe('<script>window.__pwned = 1; alert(1)</script> red <img src=x onerror="window.__pwned=2">');
      // and on its run page.
      const bKey = (await page.getAttribute('section.batch tr[data-plan="b"]', 'data-key'))!;
      const b = await openPage(browser!, `${serve.url}run?key=${encodeURIComponent(bKey)}`);
      await poll(() => b.page.locator('#transcript div').allTextContents(), { timeout: PATIENCE_MS }).toContain('<script>window.__pwned = 1; alert(1)</script> red <img src=x onerror="window.__pwned=2">');

      writeFileSync(join(gate, 'b'), '');
      writeFileSync(join(gate, 'c'), '');
      await poll(() => outcome('b'), { timeout: PATIENCE_MS }).toBe('complete');
      await poll(() => outcome('c'), { timeout: PATIENCE_MS }).toBe('failed');
      expect(await ended).toBe(1);
      await poll(() => page.textContent('section.batch h3'), { timeout: PATIENCE_MS }).toMatch(/· done · 3\/3 plans ended$/);
      expect(await page.evaluate('window.__loadedOnce')).toBe(true);
      for (const p of [w, b]) {
        expect(await p.page.evaluate('typeof window.__pwned')).toBe('undefined');
        expect(p.dialogs).toEqual([]);
        expect(p.errors).toEqual([]);
      }
      // The batch's page: its index once written.
      const id = readdirSync(join(repo, '.ralph', 'batches'))[0]!;
      const bp = await openPage(browser!, `${serve.url}batch?id=${id}`);
      await poll(() => bp.page.textContent('pre.index')).toContain('[2/3 plans complete]');
      await Promise.all([w.page.close(), b.page.close(), bp.page.close()]);
      expect(await serve.stop()).toBe(0);
    } finally {
      batch.kill('SIGKILL');
      serve.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
