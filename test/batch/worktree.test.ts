import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBatch, type RunPlanFn } from '../../src/batch/index.js';
import { fakeRunner } from './fake-runner.js';
import { tempDir, writePlan } from './helpers.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

function repoWithPlans(names: string[]): string {
  const dir = tempDir('ralph-batch-git-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 't@example.com');
  git(dir, 'config', 'user.name', 't');
  writeFileSync(join(dir, 'shared.txt'), 'original\n');
  mkdirSync(join(dir, 'plans'));
  for (const n of names) writePlan(join(dir, 'plans'), `${n}.md`);
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'init');
  return dir;
}

describe('worktree isolation', () => {
  it('runs each plan in its own worktree and branch, so edits to one file do not collide', async () => {
    const dir = repoWithPlans(['a', 'b']);
    const fake = fakeRunner({});
    const seen: Array<{ cwd: string; planPath: string }> = [];
    const runPlan: RunPlanFn = async (options, hooks) => {
      seen.push({ cwd: options.cwd, planPath: options.planPath });
      const id = options.planPath.endsWith('a.md') ? 'a' : 'b';
      writeFileSync(join(options.cwd, 'shared.txt'), `edited by ${id}\n`);
      git(options.cwd, 'commit', '-q', '-am', `plan ${id}`);
      return fake.runPlan(options, hooks);
    };
    const summary = await runBatch({ cwd: dir, plans: ['plans'], concurrency: 2 }, { runPlan });
    expect(summary.exitCode).toBe(0);
    const out = summary.out;
    for (const id of ['a', 'b']) {
      const wt = join(out, 'worktrees', id);
      expect(seen).toContainEqual({ cwd: wt, planPath: join(wt, 'plans', `${id}.md`) });
      expect(readFileSync(join(wt, 'shared.txt'), 'utf8')).toBe(`edited by ${id}\n`);
      const branch = `ralph/${summary.batchId}/${id}`;
      expect(git(dir, 'show', `${branch}:shared.txt`)).toBe(`edited by ${id}`);
      expect(readFileSync(join(out, `${id}.md`), 'utf8')).toMatch(new RegExp(`- Branch: ${branch}\n- Commit: [0-9a-f]{40}\n- Worktree: worktrees/${id}\n`));
    }
    expect(readFileSync(join(dir, 'shared.txt'), 'utf8')).toBe('original\n');
    expect(git(dir, 'worktree', 'list')).toContain(join(out, 'worktrees', 'a'));
    expect(readFileSync(join(out, 'index.md'), 'utf8')).toMatch(new RegExp(`ralph/${summary.batchId}/a @ [0-9a-f]{12} / worktrees/a`));
  });

  it('two batches started in the same second, each with its own --out, get their own branches', async () => {
    const dir = repoWithPlans(['a']);
    const fake = fakeRunner({});
    const now = () => new Date('2026-03-04T05:06:07Z');
    const first = await runBatch({ cwd: dir, plans: ['plans'], concurrency: 2, out: join(dir, 'one') }, { runPlan: fake.runPlan, now });
    const second = await runBatch({ cwd: dir, plans: ['plans'], concurrency: 2, out: join(dir, 'two') }, { runPlan: fake.runPlan, now });
    expect([first.batchId, second.batchId]).toEqual(['20260304-050607', '20260304-050607-2']);
    expect(git(dir, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/ralph/').split('\n')).toEqual(['ralph/20260304-050607-2/a', 'ralph/20260304-050607/a']);
  });

  it('reuses the worktree for a retry', async () => {
    const dir = repoWithPlans(['a']);
    const fake = fakeRunner({ a: [{ outcome: 'off_rails' }, { outcome: 'complete' }] });
    const summary = await runBatch({ cwd: dir, plans: ['plans'], concurrency: 2 }, { runPlan: fake.runPlan });
    expect(fake.calls.map((c) => c.options.cwd)).toEqual([join(summary.out, 'worktrees', 'a'), join(summary.out, 'worktrees', 'a')]);
    expect(summary.exitCode).toBe(0);
  });

  it('refuses worktrees in a repository without a commit', async () => {
    const dir = tempDir();
    git(dir, 'init', '-q');
    writePlan(dir, 'a.md');
    await expect(runBatch({ cwd: dir, plans: ['a.md'], concurrency: 2 }, { runPlan: fakeRunner({}).runPlan })).rejects.toThrow(/no commit yet/);
  });
});
