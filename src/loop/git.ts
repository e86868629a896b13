// The little of git the loop needs: the repository's top level, HEAD at a point in time, and
// whether commits came since.
// Asynchronous: in a batch many runs share one process, and a blocking call stalls them all.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve as resolvePath } from 'node:path';

/** Whether a .git (folder or file) stands in `cwd` or above it: outside one, git is not asked. */
function insideRepository(cwd: string): boolean {
  if (process.env.GIT_DIR) return true;
  for (let dir = resolvePath(cwd); ; dir = dirname(dir)) {
    if (existsSync(join(dir, '.git'))) return true;
    if (dirname(dir) === dir) return false;
  }
}

/** What git printed and whether it failed; null outside a repository. */
function runGit(cwd: string, args: string[]): Promise<{ out: string; failed: boolean } | null> {
  if (!insideRepository(cwd)) return Promise.resolve(null);
  return new Promise((resolve) => {
    execFile('git', args, { cwd, encoding: 'utf8', timeout: 10_000 }, (error, stdout) => {
      resolve({ out: stdout.trim(), failed: error !== null });
    });
  });
}

async function git(cwd: string, args: string[]): Promise<string | null> {
  const ran = await runGit(cwd, args);
  return ran === null || ran.failed ? null : ran.out;
}

export function headSha(cwd: string): Promise<string | null> {
  return git(cwd, ['rev-parse', '--verify', '-q', 'HEAD']);
}

/**
 * The repository's top-level folder (`git rev-parse --show-toplevel`) and HEAD (as headSha
 * reads it) from one git process: a run asks both when it starts. In a repository with no
 * commit yet git prints the top level, then fails on HEAD.
 */
export async function rootAndHead(cwd: string): Promise<{ root: string | null; head: string | null }> {
  const ran = await runGit(cwd, ['rev-parse', '--show-toplevel', '--verify', '-q', 'HEAD']);
  if (ran === null) return { root: null, head: null };
  if (ran.out === '') {
    // No work tree (a folder inside .git, a bare repository): no top level, yet HEAD may resolve.
    return { root: null, head: await headSha(cwd) };
  }
  if (ran.failed) return { root: ran.out, head: null };
  const cut = ran.out.lastIndexOf('\n');
  return cut < 0 ? { root: null, head: null } : { root: ran.out.slice(0, cut), head: ran.out.slice(cut + 1) };
}

/** Commits reachable from HEAD that were not there at `since` (null: a repo that had no commit). */
export async function commitsSince(cwd: string, since: string | null): Promise<number> {
  const head = await headSha(cwd);
  if (head === null || head === since) return 0;
  const count = await git(cwd, since ? ['rev-list', '--count', `${since}..HEAD`] : ['rev-list', '--count', 'HEAD']);
  return count === null ? 0 : Number(count) || 0;
}
