// Batches run from the tree the user sees, and each plan's work ends up committed on its branch
// (docs/first-hour.md).
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBatch, type RunPlanFn } from '../../src/batch/index.js';
import { commitPlanBranch } from '../../src/batch/commit-plan-branch.js';
import { UsageError } from '../../src/errors.js';
import { fakeRunner } from './fake-runner.js';
import { tempDir, writePlan } from './helpers.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
}

/** A repository with plans a and b (each runs `./agent.sh`, committed) and nothing else changed. */
function repo(): string {
  const dir = tempDir('ralph-batch-dirty-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.email', 't@example.com');
  git(dir, 'config', 'user.name', 't');
  mkdirSync(join(dir, 'plans'));
  for (const n of ['a', 'b']) writePlan(join(dir, 'plans'), `${n}.md`, 'command: [./agent.sh]');
  writeFileSync(join(dir, 'agent.sh'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(dir, 'agent.sh'), 0o755);
  git(dir, 'add', '.');
  git(dir, 'commit', '-q', '-m', 'init');
  return dir;
}

async function refusal(dir: string, extra: { exec?: { command: string[] } } = {}): Promise<UsageError> {
  try {
    await runBatch({ cwd: dir, plans: ['plans'], concurrency: 2, ...extra }, { runPlan: fakeRunner({}).runPlan });
  } catch (error) {
    return error as UsageError;
  }
  throw new Error('the batch ran');
}

describe('a batch refuses to run what the worktrees would not hold', () => {
  it('names an edited plan, a new plan and an agent script never added, and exits 64 before anything runs', async () => {
    const dir = repo();
    writeFileSync(join(dir, 'plans', 'a.md'), `${readFileSync(join(dir, 'plans', 'a.md'), 'utf8')}\nedited\n`);
    writePlan(join(dir, 'plans'), 'c.md', 'command: [node, tools/new-agent.mjs]');
    mkdirSync(join(dir, 'tools'));
    writeFileSync(join(dir, 'tools', 'new-agent.mjs'), '');
    const error = await refusal(dir);
    expect(error).toBeInstanceOf(UsageError);
    expect(error.exitCode).toBe(64);
    expect(error.message).toContain('plans/a.md: modified (plan a)');
    expect(error.message).toContain('plans/c.md: untracked (plan c)');
    expect(error.message).toContain('tools/new-agent.mjs: untracked (agent command of plan c)');
    expect(error.message).not.toContain('plans/b.md');
    expect(error.hint).toMatch(/--allow-dirty/);
    expect(existsSync(join(dir, '.ralph', 'batches'))).toBe(false);
  });

  it('an agent command given after -- counts too (a modified script)', async () => {
    const dir = repo();
    writeFileSync(join(dir, 'agent.sh'), '#!/bin/sh\necho changed\n');
    const error = await refusal(dir, { exec: { command: ['./agent.sh', '--flag'] } });
    expect(error.message).toContain('agent.sh: modified (agent command of plan a)');
  });

  it('a program that cannot be started is a usage error before anything runs, naming the plan', async () => {
    const dir = repo();
    const error = await refusal(dir, { exec: { command: ['ralph-no-such-agent-3f1'] } });
    expect(error.exitCode).toBe(64);
    expect(error.message).toContain('cannot start "ralph-no-such-agent-3f1": no such program (is it installed and on PATH?)');
  });

  it('with --allow-dirty the worktrees get the working tree, and the user\'s own tree and index are untouched', async () => {
    const dir = repo();
    writeFileSync(join(dir, 'plans', 'a.md'), `${readFileSync(join(dir, 'plans', 'a.md'), 'utf8')}\nedited\n`);
    writeFileSync(join(dir, 'notes.txt'), 'untracked notes\n');
    const seen: string[] = [];
    const fake = fakeRunner({});
    const runPlan: RunPlanFn = async (options, hooks) => {
      seen.push(readFileSync(options.planPath, 'utf8'));
      expect(readFileSync(join(options.cwd, 'notes.txt'), 'utf8')).toBe('untracked notes\n');
      return fake.runPlan(options, hooks);
    };
    const summary = await runBatch({ cwd: dir, plans: ['plans'], concurrency: 2, allowDirty: true }, { runPlan });
    expect(summary.exitCode).toBe(0);
    expect(seen.some((t) => t.endsWith('\nedited\n'))).toBe(true);
    expect(git(dir, 'status', '--porcelain')).toBe('M plans/a.md\n?? notes.txt'); // (trimmed: " M plans/a.md")
    expect(git(dir, 'diff', '--cached', '--name-only')).toBe('');
    expect(git(dir, 'log', '--format=%s', 'main')).toBe('init');
    // Nothing to commit after the plan: the branch holds the snapshot it started from.
    const base = git(dir, 'log', '-1', '--format=%s', `ralph/${summary.batchId}/a`);
    expect(base).toMatch(/the working tree at the start of batch .* \(--allow-dirty\)/);
  });
});

describe('a plan\'s work is committed on its branch', () => {
  it('commits what the agent left uncommitted, with plan, outcome and run id; the index and result name the commit', async () => {
    const dir = repo();
    const fake = fakeRunner({ b: [{ outcome: 'blocked' }] });
    const runPlan: RunPlanFn = async (options, hooks) => {
      writeFileSync(join(options.cwd, 'work.txt'), `work of ${options.planPath}\n`);
      return fake.runPlan(options, hooks);
    };
    const summary = await runBatch({ cwd: dir, plans: ['plans'], concurrency: 2 }, { runPlan });
    for (const [id, outcome] of [['a', 'complete'], ['b', 'blocked']] as const) {
      const branch = `ralph/${summary.batchId}/${id}`;
      const subject = git(dir, 'log', '-1', '--format=%s', branch);
      expect(subject).toMatch(new RegExp(`^ralph: ${id} ${outcome} \\(run [^,]+, attempt 1\\)$`));
      expect(git(dir, 'log', '-1', '--format=%b', branch)).toContain(`Outcome: ${outcome}`);
      expect(git(dir, 'show', `${branch}:work.txt`)).toContain(`plans/${id}.md`);
      const commit = git(dir, 'rev-parse', branch);
      expect(readFileSync(join(summary.out, `${id}.md`), 'utf8')).toContain(`- Commit: ${commit}\n`);
      expect(summary.rows.find((r) => r.plan === id)!.commit).toBe(commit);
      expect(git(join(summary.out, 'worktrees', id), 'status', '--porcelain')).toBe('');
    }
    expect(readFileSync(join(summary.out, 'index.md'), 'utf8')).toMatch(/ralph\/[^ ]+\/a @ [0-9a-f]{12} \/ worktrees\/a/);
  });

  it('commitPlanBranch: null when there is nothing to commit; refuses a worktree an agent moved to another branch', async () => {
    const dir = repo();
    git(dir, 'checkout', '-q', '-b', 'ralph/x/a');
    expect(await commitPlanBranch({ cwd: dir, branch: 'ralph/x/a', message: 'm' })).toEqual({ commit: null });
    writeFileSync(join(dir, 'new.txt'), 'x\n');
    const made = await commitPlanBranch({ cwd: dir, branch: 'ralph/x/a', message: 'ralph: a complete' });
    expect(made.commit).toBe(git(dir, 'rev-parse', 'HEAD'));
    git(dir, 'checkout', '-q', 'main');
    writeFileSync(join(dir, 'other.txt'), 'x\n');
    await expect(commitPlanBranch({ cwd: dir, branch: 'ralph/x/a', message: 'm' })).rejects.toThrow(/is on main, not on ralph\/x\/a/);
    expect(git(dir, 'status', '--porcelain')).toBe('?? other.txt');
    git(dir, 'checkout', '-q', '--detach');
    await expect(commitPlanBranch({ cwd: dir, branch: 'ralph/x/a', message: 'm' })).rejects.toThrow(/is on \(detached HEAD\), not on ralph\/x\/a/);
  });
});
