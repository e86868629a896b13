// A sick worker steps aside (docs/queue.md): one that cannot write its workdir (a full disk, a
// folder turned read-only) would only fail each job it takes, fast, while healthy workers idle. So
// a worker looks before each job and after each attempt, and stops when its workdir is unusable.
import { randomBytes } from 'node:crypto';
import { open, rm, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { QUEUE } from '../contract.js';

/** Why `workdir` cannot take a plan now, or null when it can. */
export async function workdirProblem(workdir: string, minFreeBytes: number = QUEUE.minFreeBytes): Promise<string | null> {
  try {
    const s = await statfs(workdir);
    const free = s.bavail * s.bsize;
    if (free < minFreeBytes) return `only ${Math.floor(free / 1024)} KiB free on its file system (it needs ${Math.round(minFreeBytes / 1024 / 1024)} MiB)`;
  } catch (error) {
    return `cannot look at it: ${describe(error)}`;
  }
  const probe = join(workdir, `.write-probe-${randomBytes(4).toString('hex')}`);
  try {
    const file = await open(probe, 'w');
    try {
      await file.write(Buffer.alloc(4096));
      await file.sync();
    } finally {
      await file.close();
    }
    return null;
  } catch (error) {
    return `cannot write it: ${describe(error)}`;
  } finally {
    await rm(probe, { force: true }).catch(() => undefined);
  }
}

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e.code ? `${e.code} ${String(e.message).replace(/^\w+: /, '').split(',')[0]}` : String(error);
}
