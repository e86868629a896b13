// One worker per workdir (docs/queue.md): a worker reuses its checkouts between jobs, so a second
// worker on the same folder would check out over the plans the first one is running.
import { readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { QUEUE } from '../contract.js';
import { UsageError } from '../errors.js';
import { pidAlive } from '../runs/liveness.js';

export const WORKDIR_LOCK = 'worker.lock';

export interface Holder {
  pid: number;
  host: string;
}

function readHolder(path: string): (Holder & { ageMs: number }) | null {
  try {
    const holder = JSON.parse(readFileSync(path, 'utf8')) as Partial<Holder>;
    if (typeof holder.pid !== 'number' || typeof holder.host !== 'string') return null;
    return { pid: holder.pid, host: holder.host, ageMs: Date.now() - statSync(path).mtimeMs };
  } catch {
    return null; // gone meanwhile, or cut short by a crash
  }
}

/**
 * Whether the worker named in a lock still runs. On this host its pid says so (a pid that is
 * ours is a lock left by an earlier life of this container or machine). Another host's worker
 * cannot be asked: it is taken to run while it keeps touching the lock.
 */
function stillHeld(holder: Holder & { ageMs: number }): boolean {
  if (holder.host === hostname()) return holder.pid !== process.pid && pidAlive(holder.pid);
  return holder.ageMs < QUEUE.workdirLockStaleMs;
}

/** The worker that holds `workdir` now (its pid and host), or null when none does: what `ralph clean --workdir` leaves alone. */
export function liveHolder(workdir: string): Holder | null {
  const holder = readHolder(join(workdir, WORKDIR_LOCK));
  return holder && stillHeld(holder) ? { pid: holder.pid, host: holder.host } : null;
}

/**
 * Takes `<workdir>/worker.lock` for this process and keeps it fresh; returns its release. A lock
 * whose worker is gone is taken over; one held by a running worker is a usage error.
 */
export function lockWorkdir(workdir: string): () => void {
  const path = join(workdir, WORKDIR_LOCK);
  const me: Holder = { pid: process.pid, host: hostname() };
  for (let tries = 0; tries < 3; tries++) {
    try {
      writeFileSync(path, `${JSON.stringify(me)}\n`, { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = readHolder(path);
      if (holder && stillHeld(holder)) {
        const who = holder.host === me.host ? `another ralph worker (pid ${holder.pid})` : `a ralph worker on ${holder.host} (pid ${holder.pid})`;
        throw new UsageError(`${workdir} is used by ${who}`, 'give each worker its own --workdir');
      }
      rmSync(path, { force: true });
      continue;
    }
    // Touched while the worker runs, so a worker on another host can tell a live lock from a stale one.
    const touch = setInterval(() => {
      try {
        const now = new Date();
        utimesSync(path, now, now);
      } catch {
        // the folder went away: nothing to keep
      }
    }, QUEUE.workdirLockStaleMs / 3);
    touch.unref();
    return () => {
      clearInterval(touch);
      rmSync(path, { force: true });
    };
  }
  throw new UsageError(`cannot take ${path}: other workers keep starting on ${workdir}`, 'give each worker its own --workdir');
}
