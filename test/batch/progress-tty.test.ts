import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createTtyProgress } from '../../src/batch/index.js';

describe('TTY progress', () => {
  it('shows overall progress and a line per running plan, logs finished plans, and erases its lines before the last one', () => {
    const out = Object.assign(new PassThrough(), { isTTY: true, columns: 120 });
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const sigintBefore = process.listenerCount('SIGINT');
    const r = createTtyProgress(out);
    r.onEvent({ type: 'batch-start', batchId: 'b', out: '/o', plans: ['a', 'b'], toRun: ['a', 'b'], concurrency: 2, isolate: 'none', resumed: false });
    r.onEvent({ type: 'plan-start', plan: 'a', attempt: 1, runDir: '', cwd: '', branch: null, worktree: null });
    r.onEvent({ type: 'run', plan: 'a', attempt: 1, event: { type: 'iteration-start', iteration: 2, maxIterations: 20, fresh: true, prompt: 'full' } });
    r.onEvent({ type: 'run', plan: 'a', attempt: 1, event: { type: 'signal', iteration: 2, name: 'BAILOUT', args: ['ctx'], source: 'stdout' } });
    expect(process.listenerCount('SIGINT')).toBe(sigintBefore); // the batch owns SIGINT, not the bars
    r.onEvent({ type: 'plan-end', plan: 'a', attempt: 1, outcome: 'complete', reason: 'ok', exitCode: 0, verdict: 'safe', resultFile: '/o/a.md', iterations: 2, costUsd: 0.1 });
    r.onEvent({ type: 'batch-end', complete: 1, total: 2, exitCode: 1, interrupted: false, index: '/o/index.md' });
    r.stop();
    expect(text).toContain('a | iteration 2 (max 20) | unknown | BAILOUT');
    expect(text).toContain('a: complete, verdict safe, 2 iterations, $0.1000');
    expect(text).toContain('1/2 plans finished');
    expect(text.trimEnd().endsWith('[1/2 plans complete] index: /o/index.md')).toBe(true);
    // Line wrap is never turned off, and the live lines are erased before the last line.
    expect(text).not.toContain('\u001b[?7l');
    expect(text).toMatch(/\u001b\[J\[1\/2 plans complete\]/);
  });
});
