// Finds every run below a folder: `ralph exec` writes .ralph/runs/<id>/, `ralph batch` writes
// <out>/runs/<plan>/, and users point --runs at either, so any folder holding a findings log or a
// result.json counts as a run, however deep.
import { readdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_FILES } from '../../contract.js';
import { UsageError, type Problem } from '../../errors.js';

export interface RunLocation {
  /** Absolute or as-given path of the run folder. */
  dir: string;
  /** Relative to the runs folder, `/`-separated ('.' for the folder itself). */
  rel: string;
  findings?: string;
  result?: string;
}

// Folders that never hold runs and can be huge when --runs points at a repository.
const SKIP_DIRS = new Set(['node_modules', '.git']);

/** Throws a UsageError naming the folder when it does not exist or is not a folder. */
export async function assertRunsFolder(root: string): Promise<void> {
  let info;
  try {
    info = await stat(root);
  } catch {
    throw new UsageError(
      `runs folder not found: ${root}`,
      'Pass --runs DIR with a folder that holds ralph runs (a .ralph folder or a batch --out folder).',
    );
  }
  if (!info.isDirectory()) {
    throw new UsageError(`--runs must be a folder, but ${root} is a file`, 'Pass --runs DIR with the folder that holds the runs.');
  }
}

export async function discoverRuns(root: string, problems: Problem[] = []): Promise<RunLocation[]> {
  await assertRunsFolder(root);
  const found: RunLocation[] = [];
  // Iterative walk: deep trees cannot overflow the stack; symlinks are not followed (no cycles).
  // Synchronous listing: a promise per folder cost more than the listing itself, and nothing else
  // runs meanwhile. Each folder carries its relative path, so no path.relative() per run.
  const pending: Array<[dir: string, rel: string]> = [[root, '.']];
  while (pending.length > 0) {
    const [dir, rel] = pending.pop()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (error) {
      problems.push({ file: dir, message: `cannot list folder: ${(error as Error).message}` });
      continue;
    }
    const here: RunLocation = { dir, rel };
    for (const entry of entries) {
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name)) pending.push([join(dir, entry.name), rel === '.' ? entry.name : `${rel}/${entry.name}`]);
      } else if (entry.isFile()) {
        if (entry.name === RUN_FILES.findings) here.findings = join(dir, entry.name);
        else if (entry.name === RUN_FILES.result) here.result = join(dir, entry.name);
      }
    }
    if (here.findings !== undefined || here.result !== undefined) found.push(here);
  }
  return found.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}
