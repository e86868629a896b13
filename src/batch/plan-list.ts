// Which plans a batch runs: files given one by one, or a folder's *.md plans (not recursing).
// Every plan is read and validated before anything runs (docs/batch.md#plans), and all problems are
// listed at once. A plan's id (front matter `id`, else its stem) names its files and branch, so
// ids must be unique in the batch and safe as a file name.
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InvalidInputError, UsageError, type Problem } from '../errors.js';
import { MAX_PLAN_BYTES, parsePlan } from '../plan/index.js';
import { readRegularFile } from '../util/read-regular-file.js';
import type { BatchPlan } from './types.js';

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Names the batch folder uses for its own files. */
const RESERVED_IDS = new Set(['index', 'report', 'batch']);

function isPlanFileName(name: string): boolean {
  return name.endsWith('.md') && !name.endsWith('.summary.json') && !name.startsWith('_') && !name.startsWith('.');
}

/** A folder's plans (`ralph batch` and `ralph validate`), sorted, as paths joined to `dir`. */
export async function listFolder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((e) => (e.isFile() || e.isSymbolicLink()) && isPlanFileName(e.name))
    .map((e) => join(dir, e.name))
    .sort();
}

/** Resolves the command line's plan arguments to plans with unique ids, or throws a usage error listing every problem. */
export async function resolvePlans(args: string[], cwd: string): Promise<BatchPlan[]> {
  if (args.length === 0) throw new UsageError('no plans given', 'usage: ralph batch <plans…|folder> [options]');
  const files: string[] = [];
  const problems: Problem[] = [];
  for (const arg of args) {
    const path = resolve(cwd, arg);
    let info;
    try {
      info = await stat(path);
    } catch {
      problems.push({ file: arg, message: 'no such file or folder' });
      continue;
    }
    if (info.isDirectory()) {
      const found = await listFolder(path);
      if (found.length === 0) problems.push({ file: arg, message: 'folder holds no *.md plans' });
      files.push(...found);
    } else {
      files.push(path);
    }
  }
  const plans: BatchPlan[] = [];
  const byId = new Map<string, string>();
  for (const path of [...new Set(files)]) {
    let text: string;
    try {
      text = (await readRegularFile(path, MAX_PLAN_BYTES)).toString('utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      problems.push({ file: path, message: code === 'ENOTREG' || code === 'EFBIG' ? (error as Error).message : `cannot read the plan (${code ?? 'error'})` });
      continue;
    }
    const parsed = parsePlan(text, path);
    if (!parsed.plan) {
      problems.push(...parsed.problems);
      continue;
    }
    const id = parsed.plan.id;
    if (!SAFE_ID.test(id)) {
      problems.push({ file: path, message: `plan id "${id}" cannot name a file or branch: use letters, digits, ".", "_" and "-", starting with a letter or digit` });
      continue;
    }
    if (RESERVED_IDS.has(id)) {
      problems.push({ file: path, message: `plan id "${id}" is reserved for the batch's own ${id}.md/json; give the plan another id in its front matter` });
      continue;
    }
    const other = byId.get(id);
    if (other !== undefined) {
      problems.push({ file: path, message: `plan id "${id}" is also the id of ${other}; ids must be unique in a batch (set \`id:\` in the front matter)` });
      continue;
    }
    byId.set(id, path);
    plans.push({ id, path });
  }
  if (problems.length) throw new InvalidInputError(problems, 'cannot start the batch');
  return plans;
}
