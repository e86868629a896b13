import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createJsonProgress, createPlainProgress, type BatchEvent } from '../../src/batch/index.js';

const events: BatchEvent[] = [
  { type: 'batch-start', batchId: 'b1', out: '/o', plans: ['a', 'b'], toRun: ['a', 'b'], concurrency: 2, isolate: 'none', resumed: false },
  { type: 'plan-start', plan: 'a', attempt: 1, runDir: '/o/runs/a', cwd: '/w', branch: null, worktree: null },
  { type: 'run', plan: 'a', attempt: 1, event: { type: 'iteration-start', iteration: 1, maxIterations: 20, fresh: true, prompt: 'full' } },
  { type: 'run', plan: 'a', attempt: 1, event: { type: 'output', iteration: 1, stream: 'stdout', text: '\u001b[31mred\u001b[0m\n' } },
  { type: 'run', plan: 'a', attempt: 1, event: { type: 'signal', iteration: 1, name: 'BLOCKED', args: ['needs \u001b[2Jkeys'], source: 'stdout' } },
  { type: 'plan-end', plan: 'a', attempt: 1, outcome: 'blocked', reason: 'needs keys', exitCode: 2, verdict: 'needs-changes', resultFile: '/o/a.md', iterations: 1, costUsd: 0.5 },
  { type: 'batch-end', complete: 0, total: 2, exitCode: 2, interrupted: false, index: '/o/index.md' },
];

function collect(stream: PassThrough): () => string {
  const chunks: string[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c.toString()));
  return () => chunks.join('');
}

describe('progress renderers', () => {
  it('plain: one timestamped line per notable event, no control sequences', () => {
    const out = new PassThrough();
    const text = collect(out);
    const r = createPlainProgress(out, () => new Date('2026-01-02T03:04:05Z'));
    for (const e of events) r.onEvent(e);
    r.stop();
    const lines = text().trimEnd().split('\n');
    expect(lines).toHaveLength(6);
    for (const l of lines) expect(l).toMatch(/^2026-01-02T03:04:05Z \S/);
    expect(text()).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(lines.at(-1)).toBe('2026-01-02T03:04:05Z [0/2 plans complete] index: /o/index.md');
    expect(lines[4]).toContain('a: blocked, verdict needs-changes, 1 iteration, $0.5000 (needs keys)');
  });

  it('an interrupted batch ends with the whole command that continues it', () => {
    const out = new PassThrough();
    const text = collect(out);
    const r = createPlainProgress(out, () => new Date('2026-01-02T03:04:05Z'));
    r.onEvent({ type: 'batch-end', complete: 0, total: 2, exitCode: 130, interrupted: true, index: '/o/b1/index.md' });
    expect(text()).toBe('2026-01-02T03:04:05Z [0/2 plans complete] (interrupted; continue with: ralph batch --resume /o/b1) index: /o/b1/index.md\n');
  });

  it('json: every event is one NDJSON line, loop events tagged with plan', () => {
    const out = new PassThrough();
    const text = collect(out);
    const r = createJsonProgress(out);
    for (const e of events) r.onEvent(e);
    const records = text().trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(records.map((r) => r.type)).toEqual(['batch-start', 'plan-start', 'iteration-start', 'output', 'signal', 'plan-end', 'batch-end']);
    expect(records[2]).toEqual({ type: 'iteration-start', iteration: 1, maxIterations: 20, fresh: true, prompt: 'full', plan: 'a', attempt: 1 });
    expect(records.every((r) => r.type === 'batch-start' || r.type === 'batch-end' || r.plan === 'a')).toBe(true);
  });
});
