// The per-plan lock (docs/first-hour.md): one holder at a time, a stale lock (its process gone on
// this host) taken over, and exactly one winner when several starts race, in separate processes.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquirePlanLock, planLockPath, takeOver, type LockHolder } from '../../src/runs/plan-lock.js';
import { UsageError } from '../../src/errors.js';
import { ROOT } from '../helpers/run-ralph.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const tempDir = tempDirs();
const workDir = (): string => tempDir('ralph-lock-');
const lockOf = (cwd: string, runId: string) => ({ cwd, planPath: join(cwd, 'plan.md'), planId: 'p', runId, runDir: join(cwd, '.ralph', 'runs', runId) });

/** The pid of a process that has just ended: nothing runs under it. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '0']).pid!;
}

function writeLock(cwd: string, holder: Record<string, unknown>): string {
  const path = planLockPath(cwd, join(cwd, 'plan.md'), 'p');
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify({ host: hostname(), startedAt: '2026-01-01T00:00:00.000Z', runId: 'old-run', runDir: '/x', plan: 'p', planPath: '/x', cwd, token: 'stale', ...holder }));
  return path;
}

describe('the plan lock', () => {
  it('refuses a second holder with a usage error naming the run that holds it, and is free again once released', () => {
    const cwd = workDir();
    const first = acquirePlanLock(lockOf(cwd, 'run-one'));
    let error: unknown;
    try {
      acquirePlanLock(lockOf(cwd, 'run-two'));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(64);
    expect((error as UsageError).message).toMatch(/plan p is already running .*run run-one \(pid \d+/);
    expect(JSON.parse(readFileSync(first.path, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname(), runId: 'run-one' });
    first.release();
    expect(existsSync(first.path)).toBe(false);
    acquirePlanLock(lockOf(cwd, 'run-three')).release();
  });

  it('is keyed on the real path: the plan through a symbolic link, or from a symlinked working directory, is held', () => {
    const cwd = workDir();
    writeFileSync(join(cwd, 'plan.md'), '# p\n');
    symlinkSync('plan.md', join(cwd, 'link.md'));
    const linkedCwd = join(tempDir('ralph-lock-link-'), 'cwd');
    symlinkSync(cwd, linkedCwd);
    const held = acquirePlanLock(lockOf(cwd, 'run-one'));
    expect(() => acquirePlanLock({ ...lockOf(cwd, 'run-two'), planPath: join(cwd, 'link.md') })).toThrow(/plan p is already running .*run run-one/);
    expect(() => acquirePlanLock(lockOf(linkedCwd, 'run-three'))).toThrow(/plan p is already running .*run run-one/);
    held.release();
  });

  it('is per plan file: another plan in the same folder is not held', () => {
    const cwd = workDir();
    const a = acquirePlanLock(lockOf(cwd, 'a'));
    const b = acquirePlanLock({ ...lockOf(cwd, 'b'), planPath: join(cwd, 'other.md') });
    expect(b.path).not.toBe(a.path);
    a.release();
    b.release();
  });

  it('takes over a lock whose process is gone on this host', () => {
    const cwd = workDir();
    writeLock(cwd, { pid: deadPid() });
    const lock = acquirePlanLock(lockOf(cwd, 'new-run'));
    expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toMatchObject({ runId: 'new-run', pid: process.pid });
    lock.release();
  });

  it("takes over a lock naming this very process that it does not hold (an earlier life of a container that reuses its pids), but not one it holds", () => {
    const cwd = workDir();
    writeLock(cwd, { pid: process.pid });
    const lock = acquirePlanLock(lockOf(cwd, 'new-run'));
    expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toMatchObject({ runId: 'new-run', pid: process.pid });
    expect(() => acquirePlanLock(lockOf(cwd, 'third-run'))).toThrow(/plan p is already running .*run new-run/);
    lock.release();
  });

  it('a start that saw the stale lock after another took it over does not take it again (the lost race, step by step)', () => {
    const cwd = workDir();
    const path = writeLock(cwd, { pid: deadPid() });
    const staleSeen = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
    const winner = acquirePlanLock(lockOf(cwd, 'winner'));
    // The slower start now acts on what it read before: the lock is no longer that stale one.
    expect(takeOver(path, staleSeen, JSON.stringify({ ...staleSeen, runId: 'late', token: 'late' }))).toBe(false);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ runId: 'winner' });
    expect(existsSync(`${path}.takeover`)).toBe(false);
    winner.release();
  });

  it('does not take over a lock held on another host, and says where it is held', () => {
    const cwd = workDir();
    writeLock(cwd, { pid: deadPid(), host: 'elsewhere.example' });
    expect(() => acquirePlanLock(lockOf(cwd, 'new-run'))).toThrow(/old-run \(pid \d+ on elsewhere\.example/);
  });

  it('a release by a run that lost its lock to a takeover leaves the new holder alone', () => {
    const cwd = workDir();
    const mine = acquirePlanLock(lockOf(cwd, 'mine'));
    writeLock(cwd, { pid: process.pid, token: 'someone-else', runId: 'theirs' });
    mine.release();
    expect(JSON.parse(readFileSync(mine.path, 'utf8'))).toMatchObject({ runId: 'theirs' });
  });

  it('an unreadable lock file is a usage error that says to delete it', () => {
    const cwd = workDir();
    const path = planLockPath(cwd, join(cwd, 'plan.md'), 'p');
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '{ torn');
    expect(() => acquirePlanLock(lockOf(cwd, 'r'))).toThrow(/cannot be read/);
  });

  const STARTS = 8;
  /** Every start spins on the same signal file, then tries; returns what each said. */
  async function race(cwd: string): Promise<string[]> {
    const go = join(cwd, 'go');
    // A winner holds the lock until every start has made its attempt, so a start delayed by a
    // busy machine cannot win after the first winner let go: only overlapping holders count.
    const script = `
      import { existsSync, readdirSync, writeFileSync } from 'node:fs';
      import { acquirePlanLock } from ${JSON.stringify(join(ROOT, 'dist/runs/plan-lock.js'))};
      const [cwd, id, go] = process.argv.slice(1);
      const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
      const count = (prefix) => readdirSync(cwd).filter((n) => n.startsWith(prefix)).length;
      writeFileSync(cwd + '/ready-' + id, '');
      // Spin (for 20 s at most): every start leaves at the same moment.
      for (const until = Date.now() + 20_000; !existsSync(go) && Date.now() < until; );
      let lock;
      try {
        lock = acquirePlanLock({ cwd, planPath: cwd + '/plan.md', planId: 'p', runId: id, runDir: cwd });
        process.stdout.write('won');
      } catch (e) {
        process.stdout.write(e.exitCode === 64 ? 'lost' : 'error ' + e.message);
      }
      writeFileSync(cwd + '/attempted-' + id, '');
      if (lock) {
        for (let i = 0; i < 2000 && count('attempted-') < ${STARTS}; i++) await sleep(5);
        lock.release();
      }`;
    const children = Array.from({ length: STARTS }, (_, i) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, cwd, `run-${i}`, go], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      return new Promise<string>((done) => child.on('close', () => done(out)));
    });
    const ready = () => readdirSync(cwd).filter((n) => n.startsWith('ready-')).length;
    for (let i = 0; i < 1000 && ready() < STARTS; i++) await new Promise((r) => setTimeout(r, 10));
    writeFileSync(go, '');
    return Promise.all(children);
  }

  for (const stale of [false, true]) {
    it(`has exactly one winner among ${STARTS} processes starting at once${stale ? ' over a stale lock' : ''} (3 rounds)`, async () => {
      for (let round = 0; round < 3; round++) {
        const cwd = workDir();
        if (stale) writeLock(cwd, { pid: deadPid() });
        const outcomes = await race(cwd);
        expect(outcomes.filter((o) => o === 'won'), `round ${round}`).toHaveLength(1);
        expect(outcomes.filter((o) => o === 'lost')).toHaveLength(STARTS - 1);
      }
    });
  }
});
