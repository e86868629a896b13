// Isolation for concurrent plans: each gets its own `git worktree` on its own branch, so two
// agents editing the same file never see each other's changes. Worktrees are kept afterwards
// for review.
import { isAbsolute, join, relative } from 'node:path';
import { git, GitError } from '../util/git.js';
import { pathExists } from '../util/path-exists.js';

/** The top folder of the git repository holding `cwd`, or null outside one (or without git). */
export async function gitTopLevel(cwd: string): Promise<string | null> {
  try {
    return await git(cwd, ['rev-parse', '--show-toplevel']);
  } catch {
    return null;
  }
}

export async function hasHead(repo: string): Promise<boolean> {
  try {
    await git(repo, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
    return true;
  } catch {
    return false;
  }
}

export function branchName(batchId: string, plan: string): string {
  return `ralph/${batchId}/${plan}`;
}


async function branchExists(repo: string, branch: string): Promise<boolean> {
  try {
    await git(repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`]);
    return true;
  } catch {
    return false;
  }
}

// git takes locks on the repository while adding a worktree; one at a time avoids lock errors.
let queue: Promise<unknown> = Promise.resolve();

/**
 * Makes (or, on a retry or resume, reuses) the worktree at `path` on `branch`, started from `base`
 * (the batch's HEAD, or its snapshot of the working tree with --allow-dirty).
 */
export function ensureWorktree(repo: string, path: string, branch: string, base = 'HEAD'): Promise<void> {
  const step = queue.then(async () => {
    if (await pathExists(join(path, '.git'))) return;
    const args = (await branchExists(repo, branch))
      ? ['worktree', 'add', path, branch]
      : ['worktree', 'add', '-b', branch, path, base];
    try {
      await git(repo, args);
    } catch (error) {
      const stderr = error instanceof GitError ? error.stderr.trim() : undefined;
      throw new Error(`git worktree add failed for ${path}: ${stderr || (error as Error).message}`);
    }
  });
  queue = step.catch(() => undefined);
  return step;
}

/** `path` as seen inside the worktree when it lies inside the repository, else null. */
export function insideWorktree(repo: string, worktree: string, path: string): string | null {
  const rel = relative(repo, path);
  if (rel.startsWith('..') || isAbsolute(rel)) return null;
  return join(worktree, rel);
}

/** The plan file to run in a worktree: its copy there when it exists, else the original. */
export async function planInWorktree(repo: string, worktree: string, planPath: string): Promise<string> {
  const inside = insideWorktree(repo, worktree, planPath);
  return inside !== null && (await pathExists(inside)) ? inside : planPath;
}
