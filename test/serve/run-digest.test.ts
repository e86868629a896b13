// The timeline and facts the page shows, folded from events.jsonl lines as a run writes them.
import { describe, expect, it } from 'vitest';
import { emptyDigest, foldLines } from '../../src/serve/run-digest.js';

const usage = (iteration: number, total: number) => ({ type: 'usage', iteration, tokens: {}, costUsd: 0, totalCostUsd: total, totalTokens: {} });
const lines = (events: object[]) => events.map((e) => JSON.stringify({ at: '2026-11-26T02:00:00.000Z', ...e }));

describe('run digest', () => {
  it('builds one timeline row per iteration: prompt, decision, gate, cost, duration; and the last tool', () => {
    const d = emptyDigest();
    foldLines(d, lines([
      { type: 'run-start', runId: 'r', maxIterations: 5 },
      { type: 'agent', name: 'claude', command: ['claude'], streamFormat: 'claude-json', formatChosen: 'preset' },
      { type: 'iteration-start', iteration: 1, maxIterations: 5, fresh: true, prompt: 'full' },
      { type: 'tool', iteration: 1, name: 'Bash', summary: 'npm test', phase: 'call' },
      usage(1, 0.5),
      { type: 'near_miss', iteration: 1, line: 3, text: '**###PLAN_COMPLETE###**', reason: 'markdown', hint: 'write it alone', correct: '###PLAN_COMPLETE###', stream: 'stdout' },
      { type: 'signal', iteration: 1, name: 'PLAN_COMPLETE', args: [], source: 'stdout' },
      { type: 'decision', iteration: 1, decision: { kind: 'complete', name: 'PLAN_COMPLETE', source: 'stdout' } },
      { type: 'gate', iteration: 1, accepted: false, reason: 'verify `npm test` failed (exit 1)' },
      { type: 'iteration-end', iteration: 1, exitCode: 0, durationMs: 61_000, decision: 'complete' },
      { type: 'iteration-start', iteration: 2, maxIterations: 5, fresh: false, prompt: 'continue' },
    ]));
    // A torn last line is not an event; the rest of the iteration arrives later.
    expect(foldLines(d, ['{"type":"tool","iter'])).toBe(false);
    foldLines(d, lines([
      { type: 'tool', iteration: 2, name: 'Edit', summary: 'src/a.ts', phase: 'call' },
      { type: 'tool', iteration: 2, name: 'Edit', summary: 'src/a.ts', phase: 'result' },
      usage(2, 0.75),
      { type: 'warning', message: 'something to know' },
      { type: 'observation', iteration: 2, record: { valid: true, type: 'bug', severity: 'high', title: '<b>x</b>', file: null } },
      { type: 'iteration-end', iteration: 2, exitCode: 0, durationMs: 5_000, decision: 'complete' },
      { type: 'run-end', outcome: 'complete', exitCode: 0, reason: 'accepted' },
    ]));
    expect(d.iterations.map((r) => [r.iteration, r.prompt, r.fresh, r.decision, r.durationMs, r.costUsd, r.tools, r.nearMisses])).toEqual([
      [1, 'full', true, 'complete', 61_000, 0.5, 1, 1],
      [2, 'continue', false, 'complete', 5_000, 0.25, 1, 0],
    ]);
    expect(d.iterations[0]!.gates).toEqual([{ accepted: false, reason: 'verify `npm test` failed (exit 1)' }]);
    expect(d.iterations[0]!.signals).toEqual(['PLAN_COMPLETE']);
    expect(d.lastTool).toEqual({ label: 'Edit(src/a.ts)', at: '2026-11-26T02:00:00.000Z', iteration: 2 });
    expect([d.streamFormat, d.maxIterations, d.costUsd, d.nearMisses, d.warnings, d.findingCount]).toEqual(['claude-json', 5, 0.75, 1, 1, 1]);
    expect(d.findings[0]!.title).toBe('<b>x</b>');
    expect([d.outcome, d.reason]).toEqual(['complete', 'accepted']);
  });

  it('passes over lines that are not events, and events whose fields cannot be read as text', () => {
    const d = emptyDigest();
    expect(foldLines(d, ['', '[1,2]', 'not json', '{"type":"warning","message":{"toString":1}}', '{"type":"warning","message":"kept"}'])).toBe(true);
    expect(d.lastWarnings).toEqual(['kept']);
  });
});
