// The coordinator's files, written from workers' reports, and what a resumed coordinator makes of
// the files an earlier one left (docs/queue.md). No Redis here: reports are fed in directly.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLUX_DRIVE_SENTINEL } from '../../src/contract.js';
import type { BatchEvent } from '../../src/batch/index.js';
import { Collector } from '../../src/queue/collect.js';
import { readRows } from '../../src/batch/index-file.js';
import type { AttemptReport } from '../../src/queue/job.js';

const worker = { id: 'h-1', host: 'h', pid: 1 };

function report(plan: string, attempt: number, outcome: AttemptReport['outcome'], final: boolean): AttemptReport {
  return {
    batchId: 'b',
    plan,
    attempt,
    final,
    outcome,
    reason: `${outcome} reason`,
    exitCode: outcome === 'complete' ? 0 : 1,
    iterations: 1,
    costUsd: null,
    verdict: outcome === 'complete' ? 'safe' : 'needs-changes',
    worker,
    runDir: `/w/runs/b/${plan}`,
    checkout: `/w/jobs/b/${plan}`,
    branch: `ralph/b/${plan}`,
    pushed: null,
    pushError: null,
    result: null,
    findings: '',
    text: `# ${plan}\n\n## Result\n\n- Outcome: ${outcome}\n- Attempts: ${attempt}\n\n### Findings Index\nVerdict: safe\n\n${FLUX_DRIVE_SENTINEL}\n`,
    endedAt: '2026-01-01T00:00:00.000Z',
  };
}

function collector(out: string, plans: string[], events: BatchEvent[] = []): Collector {
  return new Collector(
    { out, batchId: 'b', emit: (e) => events.push(e), now: () => new Date('2026-01-01T00:00:00Z'), firstAttempt: () => 1 },
    plans.map((id) => ({ id, path: `/repo/plans/${id}.md` })),
  );
}

describe('Collector', () => {
  it('moves a retried attempt aside, renames a final one, stubs a second failure', async () => {
    const out = mkdtempSync(join(tmpdir(), 'ralph-collect-'));
    const events: BatchEvent[] = [];
    const c = collector(out, ['a', 'b'], events);
    expect(await c.report(report('a', 1, 'failed', false), 1)).toBe(true);
    expect(await c.report(report('a', 2, 'complete', true), 2)).toBe(true);
    expect(await c.report(report('b', 1, 'failed', false), 1)).toBe(true);
    expect(await c.report(report('b', 2, 'failed', true), 2)).toBe(true);
    expect(readdirSync(join(out, 'attempts')).sort()).toEqual(['a.attempt-1.md', 'b.attempt-1.md', 'b.attempt-2.md']);
    expect(readFileSync(join(out, 'a.md'), 'utf8')).toContain('- Outcome: complete');
    expect(readFileSync(join(out, 'b.md'), 'utf8')).toMatch(/Verdict: error\nError: failed: failed reason/);
    expect(readFileSync(join(out, 'b.md'), 'utf8')).toContain('- Earlier attempts: attempts/b.attempt-1.md, attempts/b.attempt-2.md');
    expect(c.pending()).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['plan-retry', 'plan-end', 'plan-retry', 'plan-end']);
    // Each plan's end carries its worker's exit code (the batch's notifications send it).
    expect(events.filter((e) => e.type === 'plan-end').map((e) => (e.type === 'plan-end' ? [e.plan, e.exitCode] : []))).toEqual([
      ['a', 0],
      ['b', 1],
    ]);
  });

  it('a retry that ends before its start was seen still sets the crashed attempt aside', async () => {
    const out = mkdtempSync(join(tmpdir(), 'ralph-collect-'));
    const events: BatchEvent[] = [];
    const c = collector(out, ['a'], events);
    const dead = { id: 'd-9', host: 'd', pid: 9 };
    await c.progress('a', { batchId: 'b', plan: 'a', worker: dead, attempt: 1, branch: 'ralph/b/a', runDir: '/d/runs/b/a', checkout: '/d/c/1', startedAt: '2026-01-01T00:00:00.000Z', iteration: 1, maxIterations: 3, fresh: true, prompt: 'full', at: '2026-01-01T00:00:00.000Z' });
    // Attempt 2 ran on another worker and reported within one look at the queue: no progress of it was seen.
    expect(await c.report(report('a', 2, 'complete', true), 2)).toBe(true);
    expect(readdirSync(join(out, 'attempts'))).toEqual(['a.attempt-1.md']);
    expect(readFileSync(join(out, 'attempts', 'a.attempt-1.md'), 'utf8')).toContain('d:/d/runs/b/a');
    expect(readFileSync(join(out, 'a.md'), 'utf8')).toContain('- Outcome: complete');
    const retry = events.find((e) => e.type === 'plan-retry');
    expect(retry).toMatchObject({ plan: 'a', attempt: 2, outcome: 'crashed', reason: 'attempt 1 on d-9 stopped without a result (the worker died or lost its job lock)' });
  });

  it('cancelled before a retry: the plan ends interrupted with its attempts counted; a plan that never ran has no result', async () => {
    const out = mkdtempSync(join(tmpdir(), 'ralph-collect-'));
    const c = collector(out, ['a', 'n']);
    expect(await c.report(report('a', 1, 'failed', false), 1)).toBe(true);
    await c.markNotRun('a');
    await c.markNotRun('n');
    expect(c.pending()).toEqual([]);
    expect(existsSync(join(out, 'n.md'))).toBe(false);
    const rows = await readRows(out, [{ id: 'a', path: '/repo/plans/a.md' }], new Map());
    expect(rows[0]).toMatchObject({ outcome: 'interrupted', attempts: 1 });
    expect(readFileSync(join(out, 'a.md'), 'utf8')).toContain('- Earlier attempts: attempts/a.attempt-1.md');
  });

  it('a job that failed on the queue ends crashed, in an error stub naming its earlier attempts', async () => {
    const out = mkdtempSync(join(tmpdir(), 'ralph-collect-'));
    const events: BatchEvent[] = [];
    const c = collector(out, ['a'], events);
    expect(await c.report(report('a', 1, 'failed', false), 1)).toBe(true);
    await c.jobFailed('a', 'it stalled twice');
    expect(c.pending()).toEqual([]);
    const md = readFileSync(join(out, 'a.md'), 'utf8');
    expect(md).toMatch(/Verdict: error\nError: crashed: the job failed on the queue: it stalled twice/);
    expect(md).toContain('- Earlier attempts: attempts/a.attempt-1.md');
    expect(events.at(-1)).toMatchObject({ type: 'plan-end', plan: 'a', attempt: 1, outcome: 'crashed', exitCode: null, verdict: 'error', resultFile: join(out, 'a.md') });
  });

  it('ignores a final report from an attempt the plan has moved past (a worker that lost its lock)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'ralph-collect-'));
    const events: BatchEvent[] = [];
    const c = collector(out, ['a'], events);
    expect(await c.report(report('a', 1, 'complete', true), 2)).toBe(false);
    expect(existsSync(join(out, 'a.md'))).toBe(false);
    expect(await c.report(report('a', 2, 'complete', true), 2)).toBe(true);
    expect(events.filter((e) => e.type === 'warning')).toHaveLength(1);
  });

  it('--pr: delivers after the last attempt only; the result gets the PR URL and Delivery lines, a stub too; a failed delivery is the index\'s warning', async () => {
    const out = mkdtempSync(join(tmpdir(), 'ralph-collect-'));
    const asked: string[] = [];
    const c = new Collector(
      {
        out,
        batchId: 'b',
        emit: () => undefined,
        now: () => new Date('2026-01-01T00:00:00Z'),
        firstAttempt: () => 1,
        deliver: async (r) => {
          asked.push(`${r.plan}#${r.attempt}`);
          return r.plan === 'a' ? { prUrl: 'https://github.com/o/r/pull/7', note: 'pull request #7 opened', failed: false } : { prUrl: null, note: 'pull request not opened: GitHub answered 500', failed: true };
        },
      },
      [{ id: 'a', path: '/repo/plans/a.md' }, { id: 'b', path: '/repo/plans/b.md' }],
    );
    const withPrLine = (r: AttemptReport) => ({ ...r, text: r.text.replace('- Attempts:', '- PR URL: none\n- Attempts:') });
    await c.report(withPrLine(report('a', 1, 'complete', true)), 1);
    await c.report(withPrLine(report('b', 1, 'failed', false)), 1);
    await c.report(withPrLine(report('b', 2, 'failed', true)), 2);
    expect(asked).toEqual(['a#1', 'b#2']);
    expect(readFileSync(join(out, 'a.md'), 'utf8')).toContain('- PR URL: https://github.com/o/r/pull/7\n- Delivery: pull request \\#7 opened\n- Attempts: 1');
    expect(readFileSync(join(out, 'b.md'), 'utf8')).toContain('- Delivery: failed: pull request not opened: GitHub answered 500');
    const rows = await readRows(out, [{ id: 'a', path: '/repo/plans/a.md' }, { id: 'b', path: '/repo/plans/b.md' }], new Map());
    expect(rows[0]).toMatchObject({ prUrl: 'https://github.com/o/r/pull/7' });
    expect(rows[1]!.warnings.join('\n')).toContain('delivery failed: pull request not opened');
  });

  it('resumed: writes the stub an earlier coordinator had not written yet, keeps final results, re-runs interrupted ones', async () => {
    const out = mkdtempSync(join(tmpdir(), 'ralph-collect-'));
    mkdirSync(join(out, 'attempts'));
    // b: stopped after moving its final failed attempt aside, before the stub.
    writeFileSync(join(out, 'attempts', 'b.attempt-1.md'), report('b', 1, 'failed', false).text);
    writeFileSync(join(out, 'attempts', 'b.attempt-2.md'), report('b', 2, 'failed', true).text);
    // a: done. i: ended interrupted (Ctrl+C).
    writeFileSync(join(out, 'a.md'), report('a', 1, 'complete', true).text);
    writeFileSync(join(out, 'i.md'), report('i', 1, 'interrupted', true).text);
    const c = collector(out, ['a', 'b', 'i']);
    const { rerun } = await c.restore();
    expect(rerun).toEqual(['i']);
    expect(c.pending().map((p) => p.id)).toEqual(['b', 'i']);
    expect(readdirSync(join(out, 'attempts'))).toContain('i.interrupted.md');
    // The reports are read again from Redis: the retried attempt is not handled twice; the stub is written.
    expect(await c.report(report('b', 1, 'failed', false), 2)).toBe(false);
    expect(await c.report(report('b', 2, 'failed', true), 2)).toBe(true);
    expect(readFileSync(join(out, 'b.md'), 'utf8')).toMatch(/Verdict: error\nError: failed: /);
    expect(readdirSync(join(out, 'attempts')).sort()).toEqual(['b.attempt-1.md', 'b.attempt-2.md', 'i.interrupted.md']);
    expect(c.pending().map((p) => p.id)).toEqual(['i']);
  });
});
