// Where a new batch writes: its id and folder, shared by local (`ralph batch`) and queued
// (`ralph batch --queue`) batches so both name and guard their folders the same way.
import { join, resolve } from 'node:path';
import { RUN_FILES } from '../contract.js';
import { UsageError } from '../errors.js';
import { git } from '../util/git.js';
import { pathExists } from '../util/path-exists.js';
import { BATCH_FILE } from './batch-file.js';

/** The id of a batch started at `at`: `YYYYMMDD-HHMMSS` (UTC). */
export function batchIdAt(at: Date): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 19).replace(/:/g, '')}`;
}

/**
 * The batch's folder and id: `out` resolved against `cwd`, or `.ralph/batches/<batchId>`. While
 * the folder (without `out`) or the id's branches `ralph/<batchId>/…` in `repo` are taken, a
 * `-2`, `-3`… suffix is added to the id (and to the default folder): two batches started in the
 * same second must not share branches, or the second would build on the first's work. A folder
 * that already holds a batch is refused: that batch is continued with --resume, not overwritten.
 */
export async function chooseBatchOut(cwd: string, out: string | undefined, batchId: string, repo: string | null = null): Promise<{ out: string; batchId: string }> {
  const base = resolve(cwd, RUN_FILES.root, RUN_FILES.batches);
  const folder = (id: string): string => (out ? resolve(cwd, out) : join(base, id));
  let id = batchId;
  for (let n = 2; (!out && (await pathExists(folder(id)))) || (repo !== null && (await hasBatchBranches(repo, id))); n++) id = `${batchId}-${n}`;
  const dir = folder(id);
  if (await pathExists(join(dir, BATCH_FILE))) {
    throw new UsageError(`${dir} already holds a batch`, `continue it with: ralph batch --resume ${dir}`);
  }
  return { out: dir, batchId: id };
}

async function hasBatchBranches(repo: string, batchId: string): Promise<boolean> {
  return (await git(repo, ['for-each-ref', '--count=1', '--format=%(refname)', `refs/heads/ralph/${batchId}/`])) !== '';
}
