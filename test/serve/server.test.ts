// The server of `ralph serve` over plain HTTP: it answers only to its own address, serves its
// page under a strict policy, streams runs as they change, refuses requests outside .ralph/, and
// takes the stop action only from its own page.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../src/serve/index.js';
import { ScriptedRun } from './helpers.js';
import { PATIENCE_MS } from '../helpers/patience.js';

let dir = '';
let server: RunningServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-serve-'));
  server = await startServer({ cwd: dir, port: 0, token: 'abc123' });
});

afterEach(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function ask(path: string, o: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, method: o.method ?? 'GET', headers: o.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** An open event stream: what arrived so far. */
function stream(path: string): { text: () => string; close: () => void } {
  let text = '';
  const req = request({ host: '127.0.0.1', port: server.port, path }, (res) => res.setEncoding('utf8').on('data', (d: string) => (text += d)));
  req.on('error', () => undefined);
  req.end();
  return { text: () => text, close: () => req.destroy() };
}

const own = () => ({ Origin: `http://127.0.0.1:${server.port}`, 'X-Ralph-Token': 'abc123', 'Content-Type': 'application/json' });

describe('ralph serve: the server', () => {
  it('serves its page with a strict policy, and answers only to its own address', async () => {
    const page = await ask('/');
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'none'; script-src 'self'");
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).toContain('<meta name="ralph-token" content="abc123">');
    expect((await ask('/', { headers: { Host: 'evil.example:80' } })).status).toBe(421);
    expect((await ask('/api/events', { headers: { Host: `attacker.test:${server.port}` } })).status).toBe(421);
    expect((await ask('/', { method: 'PUT' })).status).toBe(405);
    expect((await ask('/app.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  it('refuses run keys outside .ralph/', async () => {
    for (const key of ['../x', 'runs/..', 'runs/../../etc', 'runs/a/b', '/etc/passwd', 'batches/b/runs/..', 'runs/.hidden']) {
      expect((await ask(`/api/run/files?key=${encodeURIComponent(key)}`)).status).toBe(404);
      expect((await ask(`/api/run?key=${encodeURIComponent(key)}`)).status).toBe(404);
    }
    expect((await ask('/api/batch?id=..')).status).toBe(404);
  });

  it('streams a run as it changes', async () => {
    const run = new ScriptedRun(dir, '20261126-020000-aaaa');
    run.start();
    const seen = stream('/api/events');
    await vi.waitFor(() => expect(seen.text()).toContain('event: batches'));
    run.nextIteration();
    run.event({ type: 'tool', iteration: 1, name: 'Bash', summary: 'npm test', phase: 'call' });
    run.status('waiting', { waitingUntil: new Date(Date.now() + 3_600_000).toISOString(), waitingFor: 'usage limit' });
    await vi.waitFor(() => expect(seen.text()).toContain('"state":"waiting"'), { timeout: PATIENCE_MS });
    seen.close();
    const text = seen.text();
    expect(text).toContain('event: run\ndata: {"key":"runs/20261126-020000-aaaa"');
    expect(text).toContain('"label":"Bash(npm test)"');
  });

  it('takes the stop action only from its own page: POST, its Origin, its token, JSON', async () => {
    const run = new ScriptedRun(dir, '20261126-020000-bbbb');
    run.start();
    run.nextIteration();
    const body = JSON.stringify({ key: `runs/${run.id}` });
    expect((await ask('/api/stop', { method: 'POST', body, headers: { ...own(), Origin: 'http://evil.example' } })).status).toBe(403);
    expect((await ask('/api/stop', { method: 'POST', body, headers: { ...own(), 'X-Ralph-Token': 'abc124' } })).status).toBe(403);
    const { Origin: _, ...noOrigin } = own();
    expect((await ask('/api/stop', { method: 'POST', body, headers: noOrigin })).status).toBe(403);
    expect((await ask('/api/stop', { method: 'POST', body, headers: { ...own(), 'Content-Type': 'text/plain' } })).status).toBe(415);
    expect((await ask('/api/stop', { method: 'GET' })).status).toBe(405);
    expect(existsSync(run.paths.stopRequest)).toBe(false);
    const ok = await ask('/api/stop', { method: 'POST', body, headers: own() });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body).message).toBe(`asked run ${run.id} to stop after its current iteration`);
    expect(existsSync(run.paths.stopRequest)).toBe(true);
    run.finish('interrupted', 'stopped');
    const again = await ask('/api/stop', { method: 'POST', body, headers: own() });
    expect(again.status).toBe(409);
  });

  it('serves the report with its own policy, and says what is wrong with a filter', async () => {
    const run = new ScriptedRun(dir, '20261126-020000-cccc');
    run.start();
    run.nextIteration();
    run.finish('complete', 'done');
    const r = await ask('/report?min-severity=high');
    expect(r.status).toBe(200);
    expect(r.headers['content-security-policy']).toMatch(/script-src 'sha256-/);
    expect(r.body).toContain('<!doctype html>');
    const bad = await ask('/report?min-severity=loud');
    expect(bad.status).toBe(400);
    expect(bad.body).toContain('--min-severity');
  });
});
