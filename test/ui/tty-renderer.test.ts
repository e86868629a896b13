// The status line on a terminal (docs/first-hour.md, docs/overnight.md): while a run waits for a
// limit, the wait's countdown is live, redrawn by the 1 s ticker, not the text of its first draw.
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createRenderer } from '../../src/ui/index.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('tty renderer', () => {
  it('counts a limit wait down on every tick of the status line', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    const err = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
    let raw = '';
    err.on('data', (d: Buffer) => (raw += d.toString()));
    let at = Date.now();
    const r = createRenderer({ stdout: new PassThrough(), stderr: err, json: false, quiet: false, tty: true, color: false, clock: () => new Date(at) });
    r.onEvent({ type: 'run-start', runId: 'r', runDir: '/r', plan: 'p', planPath: '/p.md', cwd: '/', mode: 'new', executor: 'x', maxIterations: 5, startedAt: new Date(at).toISOString(), head: null });
    r.onEvent({ type: 'iteration-start', iteration: 1, maxIterations: 5, fresh: true, prompt: 'full' });
    const until = new Date(at + (2 * 60 + 13) * 60_000).toISOString();
    r.onEvent({ type: 'wait_start', iteration: 1, kind: 'usage', until, reason: 'limit', basis: 'reset' });
    expect(raw).toContain('(2 h 13 m)');
    at += 60_000;
    vi.advanceTimersByTime(1_000);
    expect(raw).toContain('(2 h 12 m)');
    at += 2 * 60 * 60_000 + 11 * 60_000 + 50_000;
    vi.advanceTimersByTime(1_000);
    expect(raw).toContain('(10 s)');
    r.onEvent({ type: 'wait_end', iteration: 1, kind: 'usage', until, reason: 'limit', waitedMs: 0, end: 'done' });
    const afterEnd = raw.length;
    vi.advanceTimersByTime(1_000);
    expect(raw.slice(afterEnd)).toContain('iteration 1 (max 5) · running');
    expect(raw.slice(afterEnd)).not.toContain('waiting for');
    r.close();
  });

  it('shows the last tool the agent started and for how long, until the next iteration', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    const err = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
    let raw = '';
    err.on('data', (d: Buffer) => (raw += d.toString()));
    let at = Date.now();
    const r = createRenderer({ stdout: new PassThrough(), stderr: err, json: false, quiet: false, tty: true, color: false, clock: () => new Date(at) });
    r.onEvent({ type: 'run-start', runId: 'r', runDir: '/r', plan: 'p', planPath: '/p.md', cwd: '/', mode: 'new', executor: 'x', maxIterations: 5, startedAt: new Date(at).toISOString(), head: null });
    r.onEvent({ type: 'iteration-start', iteration: 1, maxIterations: 5, fresh: true, prompt: 'full' });
    r.onEvent({ type: 'tool', iteration: 1, name: 'Bash', summary: 'npm test\x1b[2J', phase: 'call' });
    expect(raw).toContain('· running · Bash(npm test) · 0ms ·');
    at += 2 * 60_000;
    vi.advanceTimersByTime(1_000);
    expect(raw).toContain('· running · Bash(npm test) · 2m ·');
    // A finished call leaves the label; the next iteration clears it.
    r.onEvent({ type: 'tool', iteration: 1, name: 'Bash', summary: 'npm test', phase: 'result' });
    r.onEvent({ type: 'iteration-start', iteration: 2, maxIterations: 5, fresh: true, prompt: 'full' });
    const after = raw.length;
    vi.advanceTimersByTime(1_000);
    expect(raw.slice(after)).toContain('iteration 2 (max 5) · running · signal');
    expect(raw).not.toContain('\x1b[2J');
    r.close();
  });

  it('the status line says how many tasks ralph has verified', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    const err = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
    let raw = '';
    err.on('data', (d: Buffer) => (raw += d.toString()));
    const r = createRenderer({ stdout: new PassThrough(), stderr: err, json: false, quiet: false, tty: true, color: false });
    r.onEvent({ type: 'run-start', runId: 'r', runDir: '/r', plan: 'p', planPath: '/p.md', cwd: '/', mode: 'new', executor: 'x', maxIterations: 5, startedAt: new Date().toISOString(), head: null });
    r.onEvent({ type: 'iteration-start', iteration: 1, maxIterations: 5, fresh: true, prompt: 'full' });
    r.onEvent({ type: 'tasks', iteration: 1, verified: 'tasks 2/3 verified', passing: ['A', 'B'], regressed: [] });
    vi.advanceTimersByTime(1_000);
    expect(raw).toContain('iteration 1 (max 5) · running · tasks 2/3 verified · signal');
    r.close();
  });
});

describe('tty renderer: the first hour', () => {
  const start = (at: number) =>
    ({ type: 'run-start', runId: 'r', runDir: '/r', plan: 'p', planPath: '/p.md', cwd: '/', mode: 'new', executor: 'command', agent: 'claude', maxIterations: 5, startedAt: new Date(at).toISOString(), head: null }) as const;

  it('says "starting" once before the first iteration, and names the agent', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout'] });
    const err = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
    let raw = '';
    err.on('data', (d: Buffer) => (raw += d.toString()));
    const r = createRenderer({ stdout: new PassThrough(), stderr: err, json: false, quiet: false, tty: true, color: false, clock: () => new Date(0) });
    r.onEvent(start(0));
    vi.advanceTimersByTime(1_000);
    expect(raw).toContain('ralph ▸ starting · signal none yet');
    expect(raw).not.toContain('starting · starting');
    expect(raw).toContain('plan p with agent claude (run dir /r)');
    r.close();
  });

  it("prints the run's last lines after everything else, a warning after the run ended included", () => {
    const err = Object.assign(new PassThrough(), { isTTY: true, columns: 200 });
    let raw = '';
    err.on('data', (d: Buffer) => (raw += d.toString()));
    const r = createRenderer({ stdout: new PassThrough(), stderr: err, json: false, quiet: false, tty: true, color: false, clock: () => new Date(0) });
    r.onEvent(start(0));
    const result = { outcome: 'complete', iterations: 1, costUsd: null, runDir: '/r' } as never;
    r.onEvent({ type: 'run-end', outcome: 'complete', exitCode: 0, reason: 'done', result });
    r.onEvent({ type: 'warning', message: 'notification "ended" to webhook 127.0.0.1:1 not delivered' });
    r.close();
    const text = raw.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
    expect(text.indexOf('not delivered')).toBeGreaterThan(-1);
    expect(text.indexOf('not delivered')).toBeLessThan(text.indexOf('results in /r'));
    expect(text.trimEnd().endsWith('results in /r')).toBe(true);
  });
});
