// The little of git the loop needs: HEAD at a point in time, and whether commits came since.
import { execFileSync } from 'node:child_process';

function git(cwd: string, args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
  } catch {
    return null;
  }
}

export function headSha(cwd: string): string | null {
  return git(cwd, ['rev-parse', '--verify', '-q', 'HEAD']);
}

export function repoRoot(cwd: string): string | null {
  return git(cwd, ['rev-parse', '--show-toplevel']);
}

/** Commits reachable from HEAD that were not there at `since` (null: a repo that had no commit). */
export function commitsSince(cwd: string, since: string | null): number {
  const head = headSha(cwd);
  if (head === null || head === since) return 0;
  const count = git(cwd, since ? ['rev-list', '--count', `${since}..HEAD`] : ['rev-list', '--count', 'HEAD']);
  return count === null ? 0 : Number(count) || 0;
}
