// The project's root, found as git, vitest and gh find theirs (docs/files.md#where-ralph-keeps-its-files):
// the nearest folder, from `dir` upward, that holds `.git` (a folder, or the file of a worktree) or
// ralph.config.yaml. ralph keeps its one `.ralph/` there and runs the agent there by default, so a
// run started in a subfolder is found from any other folder of the same project.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CONFIG_FILE, RUN_FILES } from '../contract.js';

const MARKERS = ['.git', CONFIG_FILE];

/** The root of the project `dir` lies in; `dir` itself when no folder above it is marked as one. */
export function findProjectRoot(dir: string): string {
  const start = resolve(dir);
  for (let at = start; ; at = dirname(at)) {
    if (MARKERS.some((m) => existsSync(join(at, m)))) return at;
    if (dirname(at) === at) return start;
  }
}

/** The project's `.ralph/` folder, for any folder inside the project. */
export function ralphDir(dir: string): string {
  return join(findProjectRoot(dir), RUN_FILES.root);
}
