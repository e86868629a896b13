// One worker per workdir (docs/queue.md): the lock a worker takes, and when another worker's
// lock counts as held. Real files in a temporary folder; real processes for "alive".
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { QUEUE } from '../../src/contract.js';
import { lockWorkdir, WORKDIR_LOCK } from '../../src/queue/workdir-lock.js';

const releases: (() => void)[] = [];
afterEach(() => {
  for (const release of releases.splice(0)) release();
});

function folderWithLock(holder: { pid: number; host: string }, ageMs = 0): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-workdir-'));
  const path = join(dir, WORKDIR_LOCK);
  writeFileSync(path, JSON.stringify(holder));
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
  return dir;
}

function take(dir: string): void {
  releases.push(lockWorkdir(dir));
}

describe('lockWorkdir', () => {
  it('takes a free folder for this process, and lets it go on release', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-workdir-'));
    const release = lockWorkdir(dir);
    expect(JSON.parse(readFileSync(join(dir, WORKDIR_LOCK), 'utf8'))).toEqual({ pid: process.pid, host: hostname() });
    release();
    expect(existsSync(join(dir, WORKDIR_LOCK))).toBe(false);
  });

  it('refuses a folder whose worker on this host runs', async () => {
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
    try {
      const dir = folderWithLock({ pid: other.pid!, host: hostname() });
      expect(() => take(dir)).toThrow(`${dir} is used by another ralph worker (pid ${other.pid})`);
    } finally {
      other.kill('SIGKILL');
    }
  });

  it("takes over a lock whose worker is gone, or which names this very process (an earlier life of a container that reuses its pids)", () => {
    // Above Linux's largest pid: no process has it.
    const goneDir = folderWithLock({ pid: 2 ** 22 + 17, host: hostname() });
    take(goneDir);
    expect(JSON.parse(readFileSync(join(goneDir, WORKDIR_LOCK), 'utf8')).pid).toBe(process.pid);
    const ownDir = folderWithLock({ pid: process.pid, host: hostname() }, 0);
    take(ownDir);
    expect(JSON.parse(readFileSync(join(ownDir, WORKDIR_LOCK), 'utf8')).pid).toBe(process.pid);
  });

  it("another host's lock is held while it is touched, and stale once it has not been for a while", () => {
    const fresh = folderWithLock({ pid: 4242, host: 'elsewhere' }, 1_000);
    expect(() => take(fresh)).toThrow(`${fresh} is used by a ralph worker on elsewhere (pid 4242)`);
    const stale = folderWithLock({ pid: 4242, host: 'elsewhere' }, QUEUE.workdirLockStaleMs + 5_000);
    take(stale);
    expect(JSON.parse(readFileSync(join(stale, WORKDIR_LOCK), 'utf8')).host).toBe(hostname());
  });

  it('keeps its lock fresh while it holds it', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'ralph-workdir-'));
      take(dir);
      const path = join(dir, WORKDIR_LOCK);
      const hourAgo = new Date(Date.now() - 3_600_000);
      utimesSync(path, hourAgo, hourAgo);
      vi.advanceTimersByTime(QUEUE.workdirLockStaleMs / 3);
      expect(statSync(path).mtimeMs).toBeGreaterThan(hourAgo.getTime() + QUEUE.workdirLockStaleMs / 3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a lock cut short by a crash (not JSON) is taken over', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-workdir-'));
    writeFileSync(join(dir, WORKDIR_LOCK), '{"pid": 12');
    take(dir);
    expect(JSON.parse(readFileSync(join(dir, WORKDIR_LOCK), 'utf8')).pid).toBe(process.pid);
  });
});
