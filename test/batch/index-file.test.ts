import { describe, expect, it } from 'vitest';
import { batchExitCode, renderIndex } from '../../src/batch/index-file.js';
import type { AttemptOutcome, PlanRow, Verdict } from '../../src/batch/types.js';

function row(plan: string, outcome: AttemptOutcome | null, verdict: Verdict | null = outcome === null ? null : outcome === 'complete' ? 'safe' : 'needs-changes'): PlanRow {
  return { plan, outcome, exitCode: null, attempts: outcome ? 1 : 0, iterations: outcome ? 2 : null, costUsd: outcome ? 0.5 : null, verdict, prUrl: null, branch: null, commit: null, worktree: null, resultFile: outcome ? `${plan}.md` : null, warnings: [] };
}

describe('batch exit code', () => {
  it.each([
    [['complete', 'complete'], false, 0],
    [['complete', 'failed'], false, 1],
    [['complete', 'blocked', 'timed_out'], false, 1],
    [['blocked', 'complete'], false, 2],
    [['complete', 'interrupted'], false, 3],
    [['complete', 'complete'], true, 130],
  ] as const)('%j (interrupted %s) → %i', (outcomes, interrupted, code) => {
    expect(batchExitCode(outcomes.map((o, i) => row(`p${i}`, o)), interrupted)).toBe(code);
  });

  it('counts an error stub as a failure whatever its outcome word', () => {
    expect(batchExitCode([row('a', 'blocked', 'error')], false)).toBe(1);
  });
});

describe('index.md', () => {
  it('starts with the count, has a row per plan, and keeps cells on one line', () => {
    const text = renderIndex('b1', [row('a', 'complete'), { ...row('b', 'blocked'), branch: 'ralph/b1/b', commit: '0123456789abcdef0123', worktree: 'worktrees/b', warnings: ['odd | thing\nhere'] }, row('c', null)], { report: 'report.md', warnings: [] });
    expect(text.split('\n').slice(0, 7)).toEqual([
      '[1/3 plans complete]',
      '',
      '# Batch b1',
      '',
      '| plan | outcome | attempts | iterations | cost | verdict | branch @ commit / worktree | result |',
      '|---|---|---|---|---|---|---|---|',
      '| a | complete | 1 | 2 | $0.5000 | safe | — | [a.md](a.md) |',
    ]);
    expect(text).toContain('| b | blocked | 1 | 2 | $0.5000 | needs-changes | ralph/b1/b @ 0123456789ab / worktrees/b | [b.md](b.md) |');
    expect(text).toContain('| c | not run | 0 | — | — | — | — | — |');
    expect(text).toContain('- b: odd / thing here');
    expect(text).toContain('Observations report: [report.md](report.md)');
  });
});
