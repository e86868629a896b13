// `ralph clean --workdir DIR` through the built CLI (docs/files.md#a-workers-folder): a worker's
// old run directories go; while a worker holds the folder (a real lock, held by a live process)
// its checkouts and any run without a result stay; once it is gone, checkouts whose work is
// pushed go, one with a commit its remote lacks stays. Real git: a bare remote, a bare clone and
// its worktrees laid out as src/queue/checkout.ts lays them out.
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runRalph } from '../helpers/run-ralph.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd, encoding: 'utf8' }).trim();

/** A run directory as the loop leaves it: ended with a result, or without one (its pid dead or alive). */
function run(dir: string, o: { result: boolean; pid: number; endedAt?: string }): void {
  mkdirSync(dir, { recursive: true });
  const id = dir.split('/').pop()!;
  const at = o.endedAt ?? '2026-11-01T00:00:00.000Z';
  writeFileSync(join(dir, 'state.json'), JSON.stringify({ version: 1, runId: id, plan: id, planPath: '/x/plan.md', cwd: dir, pid: o.pid, outcome: o.result ? 'complete' : null }));
  if (o.result) writeFileSync(join(dir, 'result.json'), JSON.stringify({ run: id, plan: id, outcome: 'complete', exitCode: 0, reason: 'done', iterations: 1, costUsd: null, startedAt: at, endedAt: at }));
}

/** A live process holding the workdir's lock as a worker does (dist/queue/workdir-lock.js). */
async function holdLock(workdir: string): Promise<ChildProcess> {
  const lockModule = pathToFileURL(join(ROOT, 'dist', 'queue', 'workdir-lock.js')).href;
  const child = spawn(process.execPath, ['--input-type=module', '-e', `const { lockWorkdir } = await import(${JSON.stringify(lockModule)}); lockWorkdir(process.env.LOCK_DIR); console.log('held'); setInterval(() => {}, 1 << 30);`], {
    env: { ...process.env, LOCK_DIR: workdir },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  expect(line.toString()).toContain('held');
  return child;
}

describe('ralph clean --workdir', () => {
  it("removes a worker's ended runs; keeps what a live worker holds; then its pushed checkouts, never unpushed commits", async () => {
    const base = mkdtempSync(join(tmpdir(), 'ralph-clean-worker-'));
    dirs.push(base);
    // The remote, with one commit on main.
    const seed = join(base, 'seed');
    mkdirSync(seed);
    git(seed, 'init', '-q', '-b', 'main');
    writeFileSync(join(seed, 'a.txt'), 'a\n');
    git(seed, 'add', '-A');
    git(seed, 'commit', '-qm', 'start');
    const remote = join(base, 'remote.git');
    git(base, 'clone', '-q', '--bare', seed, remote);

    // The worker's folder: its clone and three checkouts.
    const workdir = join(base, 'work');
    const clone = join(workdir, 'repos', 'abc.git');
    mkdirSync(join(workdir, 'repos'), { recursive: true });
    git(workdir, 'clone', '-q', '--bare', remote, clone);
    git(clone, 'config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*');
    git(clone, 'fetch', '-q', 'origin');
    const checkout = (n: number, branch: string) => {
      const path = join(workdir, 'checkouts', 'abc', String(n));
      mkdirSync(join(path, '..'), { recursive: true });
      git(clone, 'worktree', 'add', '-q', '-B', branch, path, 'main');
      return path;
    };
    checkout(1, 'ralph/b1/fresh'); // nothing of its own
    const unpushed = checkout(2, 'ralph/b1/unpushed');
    writeFileSync(join(unpushed, 'work.txt'), 'only here\n');
    git(unpushed, 'add', '-A');
    git(unpushed, 'commit', '-qm', 'work whose push failed');
    const pushed = checkout(3, 'ralph/b1/pushed');
    writeFileSync(join(pushed, 'work.txt'), 'pushed\n');
    git(pushed, 'add', '-A');
    git(pushed, 'commit', '-qm', 'pushed work');
    git(pushed, 'push', '-q', 'origin', 'ralph/b1/pushed');

    // Its runs: one ended, one running (this test's process is its pid), one left without a result.
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
    run(join(workdir, 'runs', 'b1', 'ended'), { result: true, pid: deadPid });
    run(join(workdir, 'runs', 'b1', 'running'), { result: false, pid: process.pid });
    run(join(workdir, 'runs', 'b1', 'orphan'), { result: false, pid: deadPid });
    run(join(workdir, 'runs', 'b0', 'old'), { result: true, pid: deadPid });

    const worker = await holdLock(workdir);
    // The live worker's own run, ended a minute ago: it may still be pushing and reporting it.
    run(join(workdir, 'runs', 'b1', 'reporting'), { result: true, pid: worker.pid!, endedAt: new Date(Date.now() - 60_000).toISOString() });
    const lockBefore = readFileSync(join(workdir, 'worker.lock'), 'utf8');
    const held = await runRalph(['clean', '--workdir', workdir]);
    expect(held.code, held.stderr).toBe(0);
    expect(held.stdout).toContain('removed run b1/ended (complete, ended ');
    expect(held.stdout).toContain('kept run b1/running (running: ');
    expect(held.stdout).toContain(`kept run b1/orphan (no result, and the worker running there (pid ${worker.pid} on `);
    for (const n of [1, 2, 3]) expect(held.stdout).toContain(`kept checkout checkouts/abc/${n} (held by the worker running there (pid ${worker.pid} on `);
    expect(held.stdout).toMatch(new RegExp(`kept run b1/reporting \\(complete, ended [0-9ms]+ ago; the worker running there \\(pid ${worker.pid} on .*\\) may still be pushing and reporting it\\)`));
    expect(held.stdout).toMatch(/\nremoved 2, kept 6\n$/);
    // Its batch folder, now empty, stays while a worker could be making a run folder in it.
    expect(readdirSync(join(workdir, 'runs', 'b0'))).toEqual([]);
    expect(readdirSync(join(workdir, 'runs', 'b1')).sort()).toEqual(['orphan', 'reporting', 'running']);
    expect(readdirSync(join(workdir, 'checkouts', 'abc')).sort()).toEqual(['1', '2', '3']);
    expect(readFileSync(join(workdir, 'worker.lock'), 'utf8')).toBe(lockBefore);

    worker.kill('SIGKILL');
    await once(worker, 'exit');
    // The worker died without letting go of its lock: its pid is gone, so the lock is no more held.
    expect(existsSync(join(workdir, 'worker.lock'))).toBe(true);

    const young = await runRalph(['clean', '--workdir', workdir, '--older-than', '7d', '--dry-run']);
    expect(young.stdout).toContain('kept run b1/orphan (no result: its worker stopped');
    expect(young.stdout).toMatch(/\nwould remove 0, kept 6 \(dry run: nothing was removed\)\n$/);

    const dry = await runRalph(['clean', '--workdir', workdir, '--dry-run']);
    expect(dry.stdout).toContain('would remove run b1/orphan (no result: its worker stopped');
    expect(dry.stdout).toContain('would remove run b1/reporting (complete, ended ');
    expect(dry.stdout).toContain('would remove checkout checkouts/abc/1 (everything pushed');
    expect(dry.stdout).toContain('would remove checkout checkouts/abc/3 (everything pushed');
    expect(dry.stdout).toContain(`kept checkout checkouts/abc/2 (1 commit(s) its remote does not have: push them (git -C ${unpushed} push origin HEAD) or copy them first)`);
    expect(dry.stdout).toContain('kept run b1/running (running: ');
    expect(dry.stdout).toMatch(/\nwould remove 4, kept 2 \(dry run: nothing was removed\)\n$/);
    expect(readdirSync(join(workdir, 'checkouts', 'abc')).sort()).toEqual(['1', '2', '3']);

    const cleaned = await runRalph(['clean', '--workdir', workdir]);
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toMatch(/\nremoved 4, kept 2\n$/);
    expect(readdirSync(join(workdir, 'runs'))).toEqual(['b1']);
    expect(readdirSync(join(workdir, 'runs', 'b1'))).toEqual(['running']);
    expect(readdirSync(join(workdir, 'checkouts', 'abc'))).toEqual(['2']);
    expect(git(unpushed, 'log', '-1', '--format=%s')).toBe('work whose push failed');
    // The clone forgot the removed worktrees; clean let go of the lock it took while it worked.
    expect(git(clone, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
    expect(existsSync(join(workdir, 'worker.lock'))).toBe(false);

    const notWorker = await runRalph(['clean', '--workdir', seed]);
    expect(notWorker.code).toBe(64);
    expect(notWorker.stderr).toContain(`${seed} is not a worker's folder`);
    expect(readdirSync(seed).sort()).toEqual(['.git', 'a.txt']);
  });
});
