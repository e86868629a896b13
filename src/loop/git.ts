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

function git(cwd: string, args: string[]): Promise<string | null> {
  if (!insideRepository(cwd)) return Promise.resolve(null);
  return new Promise((resolve) => {
    execFile('git', args, { cwd, encoding: 'utf8', timeout: 10_000 }, (error, stdout) => {
      resolve(error ? null : stdout.trim());
    });
  });
}

export function headSha(cwd: string): Promise<string | null> {
  return git(cwd, ['rev-parse', '--verify', '-q', 'HEAD']);
}

/** The repository's top-level folder and HEAD, which a run asks when it starts. */
export async function rootAndHead(cwd: string): Promise<{ root: string | null; head: string | null }> {
  const [root, head] = await Promise.all([git(cwd, ['rev-parse', '--show-toplevel']), headSha(cwd)]);
  return { root, head };
}

/** Commits reachable from HEAD that were not there at `since` (null: a repo that had no commit). */
export async function commitsSince(cwd: string, since: string | null): Promise<number> {
  const head = await headSha(cwd);
  if (head === null || head === since) return 0;
  const count = await git(cwd, since ? ['rev-list', '--count', `${since}..HEAD`] : ['rev-list', '--count', 'HEAD']);
  return count === null ? 0 : Number(count) || 0;
}
