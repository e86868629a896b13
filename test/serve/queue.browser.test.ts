// `ralph serve --queue` (the built CLI) with two `ralph worker`s on Debian's redis-server: the page
// lists both workers and the plan each runs, live, and the batch's outcomes once collected.
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { killQuietly, killStarted, processesMentioning, ralph, until, workspace, type Workspace } from '../queue/helpers.js';
import { browserAvailable, closeBrowser, launchBrowser, openPage } from '../helpers/browser.js';
import { poll } from './helpers.js';
import { startServeCli, type ServeProc } from './serve-cli.js';
import { PATIENCE_MS } from '../helpers/patience.js';

const RUNS = redisAvailable('the ralph serve --queue test') && (await browserAvailable('the ralph serve --queue test'));
const AGENT = join(resolve(import.meta.dirname, '../..'), 'test', 'fixtures', 'serve', 'agent.mjs');

let browser: Browser | undefined;
let redis: RedisServer | null = null;
let serve: ServeProc | null = null;
let ws: Workspace | null = null;

beforeAll(async () => {
  if (RUNS) browser = await launchBrowser();
});
afterAll(async () => {
  await closeBrowser(browser);
});
afterEach(async () => {
  serve?.child.kill('SIGKILL');
  await killStarted();
  if (ws) {
    for (const pid of processesMentioning(ws.dir)) killQuietly(pid);
    await until(() => processesMentioning(ws!.dir).length === 0, PATIENCE_MS, 'no process of the workspace left');
  }
  await redis?.dispose();
});

describe.skipIf(!RUNS)('ralph serve --queue', () => {
  it('lists both workers and the plan each runs, then the outcomes', async () => {
    redis = await RedisServer.start();
    ws = workspace({ a: 'complete', b: 'complete' });
    copyFileSync(AGENT, ws.agent);
    const gate = join(ws.dir, 'gate');
    mkdirSync(gate);
    const env = { RALPH_TEST_GATE: gate };
    // Workers with the default job lock (30 s): the queue tests' short one lets a busy machine
    // take a job from a worker that is slow to renew it, which is not what this test is about.
    const workers = [];
    for (const name of ['w1', 'w2']) {
      const worker = ralph(['worker', '--queue', redis.url, '--workdir', join(ws.dir, 'workers', name), '--', process.execPath, ws.agent], ws.dir, env);
      await until(() => worker.stderr.includes(' at a time, workdir ') || worker.child.exitCode !== null, PATIENCE_MS, `worker ${name} ready`);
      workers.push(worker);
    }
    serve = await startServeCli(ws.repo, ['--queue', redis.url]);
    const out = join(ws.repo, '.ralph', 'batches', 'q1');
    // The agent is the workers' (docs/queue.md): the coordinator sends none.
    const coordinator = ralph(['batch', 'plans', '--queue', redis.url, '--out', out], ws.repo);

    const w = await openPage(browser!, serve.url);
    const { page } = w;
    const rows = async () =>
      (await page.locator('#workers tr[data-worker]').evaluateAll((trs) => trs.map((tr) => `${tr.getAttribute('data-worker')} ${tr.querySelector('.plan')!.textContent}`))).sort();
    // A job a worker took shows `starting` until the worker has its checkout and says so.
    const named = async () => (await rows()).filter((r) => /^\S+ \(pid \d+\) \S+$/.test(r));
    try {
      await poll(async () => (await named()).length, { timeout: PATIENCE_MS }).toBe(2);
    } catch (error) {
      throw new Error(`${(error as Error).message}\ncoordinator: ${coordinator.stderr}\nrows: ${JSON.stringify(await rows())}\nworkers: ${workers.map((w) => w.stderr).join('\n')}`);
    }
    const seen = await named();
    expect(new Set(seen.map((r) => r.split(' ').slice(0, -1).join(' '))).size).toBe(2);
    expect(seen.map((r) => r.split(' ').at(-1)).sort()).toEqual(['a', 'b']);
    expect(await page.textContent('#workers')).toContain('batch');

    writeFileSync(join(gate, 'a'), '');
    writeFileSync(join(gate, 'b'), '');
    expect(await coordinator.exited).toBe(0);
    await poll(() => page.locator('#workers tr[data-worker]').count(), { timeout: 30_000 }).toBe(0);
    // The coordinator's batch folder is under this .ralph/: its plans end with their outcomes.
    for (const id of ['a', 'b']) await poll(() => page.textContent(`section.batch tr[data-plan="${id}"] .outcome`), { timeout: 30_000 }).toBe('complete');
    expect(await page.evaluate('window.__loadedOnce')).toBe(true);
    expect(w.errors).toEqual([]);
    await page.close();
    expect(await serve.stop()).toBe(0);
  });
});
