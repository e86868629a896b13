// The one place the server reads queue payloads: whatever a job holds (anyone who can write to
// the Redis can write it), a row of plain, bounded, one-line fields. Progress comes sealed as the
// worker writes it, `{ body, mac }`; it is only shown, so it is read without the secret.
const sealed = (p: unknown) => ({ body: JSON.stringify(p), mac: 'x' });
import { describe, expect, it } from 'vitest';
import { groupByWorker, rowOfJob } from '../../src/serve/queue-feed.js';

describe('queue feed rows', () => {
  it('maps a running job and its progress to a row', () => {
    const row = rowOfJob(
      { v: 1, batchId: '20261126-020000-abcdef', plan: 'a' },
      sealed({ worker: { id: 'w', host: 'build-7', pid: 42 }, attempt: 2, iteration: 3, maxIterations: 10, prompt: 'condensed', checkout: '/var/lib/ralph/checkouts/x/1', startedAt: '2026-11-26T02:00:00.000Z', at: '2026-11-26T02:05:00.000Z' }),
    );
    expect(row).toEqual({
      batch: '20261126-020000-abcdef',
      plan: 'a',
      worker: 'build-7 (pid 42)',
      attempt: 2,
      iteration: 3,
      maxIterations: 10,
      prompt: 'condensed',
      checkout: 'build-7:/var/lib/ralph/checkouts/x/1',
      startedAt: '2026-11-26T02:00:00.000Z',
      heartbeat: '2026-11-26T02:05:00.000Z',
    });
  });

  it('keeps hostile or missing fields to plain bounded lines, never throws', () => {
    const row = rowOfJob({ batchId: 'b\n\x1b[2Jx', plan: 'p'.repeat(5000) }, sealed({ worker: { host: 'h\r\nost', pid: 'NaN' }, attempt: '2', iteration: 'Infinity' }));
    expect(row.batch).toBe('b x');
    expect(row.plan.length).toBeLessThanOrEqual(301);
    expect(row.worker).toBe('h ost (pid ?)');
    expect([row.attempt, row.iteration, row.checkout]).toEqual([null, null, null]);
    expect(rowOfJob(null, 'progress')).toMatchObject({ batch: '?', plan: '?', worker: null });
    expect(rowOfJob({ batchId: 'b', plan: 'p' }, { body: '{not json', mac: 'x' })).toMatchObject({ plan: 'p', worker: null, attempt: null });
  });

  it('groups rows by worker, jobs not yet reported under "starting"', () => {
    const a = rowOfJob({ batchId: 'b', plan: 'a' }, sealed({ worker: { host: 'h2', pid: 1 } }));
    const b = rowOfJob({ batchId: 'b', plan: 'b' }, sealed({ worker: { host: 'h1', pid: 1 } }));
    const c = rowOfJob({ batchId: 'b', plan: 'c' }, {});
    expect(groupByWorker([a, b, c]).map((g) => [g.worker, g.plans.map((p) => p.plan)])).toEqual([
      ['h1 (pid 1)', ['b']],
      ['h2 (pid 1)', ['a']],
      ['starting', ['c']],
    ]);
  });
});
