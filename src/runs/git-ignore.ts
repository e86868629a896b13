// Run state never reaches a commit (docs/first-hour.md): the folders ralph writes its state into
// get a `.gitignore` that ignores everything, itself included, so an agent's `git add -A` picks
// up neither run files nor batch worktrees. An existing `.gitignore` there is never rewritten:
// a user who wants to track something in it writes their own.
import { existsSync, mkdirSync } from 'node:fs';
import { join, relative, resolve, isAbsolute, sep } from 'node:path';
import { ralphDir } from './project-root.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';

export const IGNORE_EVERYTHING = '# Written by ralph: run state stays out of git (delete or edit this file to track something here).\n*\n';

/** Creates `dir` if needed and gives it a `.gitignore` ignoring everything, unless it has one. */
export function ignoreEverythingIn(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, '.gitignore');
  if (!existsSync(file)) writeFileAtomicSync(file, IGNORE_EVERYTHING);
}

/**
 * Keeps `target` (a run directory, a batch folder) out of git: the `.ralph/` folder of `cwd` is
 * ignored as a whole when `target` lies in it; any other folder is ignored itself.
 */
export function keepOutOfGit(target: string, cwd: string): void {
  const root = ralphDir(cwd);
  const rel = relative(root, resolve(target));
  const insideRoot = rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
  ignoreEverythingIn(insideRoot ? root : resolve(target));
}
