// Moving the target branch from `from` to `to` in one step, or not at all (docs/deliver.md#landing).
// Where the target is checked out (the user's checkout, typically), a fast-forward merge there
// moves branch, index and files together and refuses rather than overwrite local changes;
// elsewhere `git update-ref` moves it only if it still points at `from`. Either way another
// process that moved the target meanwhile makes this fail, not clobber its work.
import { git, GitError } from '../util/git.js';

/** The worktree that has `branch` checked out, or null. */
export async function checkedOutAt(repo: string, branch: string): Promise<string | null> {
  const list = await git(repo, ['worktree', 'list', '--porcelain']);
  let path: string | null = null;
  for (const line of list.split('\n')) {
    if (line.startsWith('worktree ')) path = line.slice('worktree '.length);
    else if (line === `branch refs/heads/${branch}`) return path;
  }
  return null;
}

export async function moveTarget(repo: string, target: string, from: string, to: string): Promise<{ ok: true; note?: string } | { ok: false; reason: string }> {
  try {
    const at = await checkedOutAt(repo, target);
    if (at) {
      const head = await git(at, ['rev-parse', 'HEAD']);
      if (head !== from) return { ok: false, reason: `${target} moved meanwhile (now ${head.slice(0, 12)}, expected ${from.slice(0, 12)})` };
      await git(at, ['merge', '--quiet', '--ff-only', to]);
    } else {
      await git(repo, ['update-ref', '-m', 'ralph land', `refs/heads/${target}`, to, from]);
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: `could not move ${target}: ${error instanceof GitError ? error.message : String(error)}` };
  }
}
