// One worker per workdir (docs/queue.md): a worker reuses its checkouts between jobs, so a second
// worker on the same folder would check out over the plans the first one is running.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { pidAlive } from '../runs/liveness.js';

export const WORKDIR_LOCK = 'worker.lock';

/** Takes `<workdir>/worker.lock` for this process; returns its release. A lock whose worker is gone is taken over. */
export function lockWorkdir(workdir: string): () => void {
  const path = join(workdir, WORKDIR_LOCK);
  const me = { pid: process.pid, host: hostname() };
  for (let tries = 0; tries < 3; tries++) {
    try {
      writeFileSync(path, `${JSON.stringify(me)}\n`, { flag: 'wx' });
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let holder: { pid?: unknown; host?: unknown } = {};
    try {
      holder = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      // gone meanwhile, or cut short by a crash: taken over below
    }
    const pid = Number(holder.pid);
    if (holder.host !== undefined && holder.host !== me.host) {
      throw new UsageError(`${workdir} is used by a ralph worker on ${String(holder.host)} (pid ${pid})`, `give each worker its own --workdir; if no worker uses it any more, delete ${path}`);
    }
    if (pidAlive(pid)) throw new UsageError(`${workdir} is used by another ralph worker (pid ${pid})`, 'give each worker its own --workdir');
    rmSync(path, { force: true });
  }
  throw new UsageError(`cannot take ${path}: other workers keep starting on ${workdir}`, 'give each worker its own --workdir');
}
