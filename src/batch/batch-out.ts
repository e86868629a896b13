// Where a new batch writes: its id and folder, shared by local (`ralph batch`) and queued
// (`ralph batch --queue`) batches so both name and guard their folders the same way.
import { join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { pathExists } from '../util/path-exists.js';
import { BATCH_FILE } from './batch-file.js';

/** The id of a batch started at `at`: `YYYYMMDD-HHMMSS` (UTC). */
export function batchIdAt(at: Date): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
}

/**
 * The batch's folder: `out` resolved against `cwd`, or `.ralph/batches/<batchId>` with a `-2`, `-3`…
 * suffix (which then becomes part of the id) while that folder is taken. A folder that already
 * holds a batch is refused: that batch is continued with --resume, not overwritten.
 */
export async function chooseBatchOut(cwd: string, out: string | undefined, batchId: string): Promise<{ out: string; batchId: string }> {
  let dir: string;
  let id = batchId;
  if (out) {
    dir = resolve(cwd, out);
  } else {
    const base = resolve(cwd, '.ralph', 'batches');
    dir = join(base, id);
    for (let n = 2; await pathExists(dir); n++) dir = join(base, `${batchId}-${n}`);
    id = dir.slice(base.length + 1);
  }
  if (await pathExists(join(dir, BATCH_FILE))) {
    throw new UsageError(`${dir} already holds a batch`, `continue it with: ralph batch --resume ${dir}`);
  }
  return { out: dir, batchId: id };
}
