// A branch applied on top of the target in a scratch worktree (docs/deliver.md#landing): rebased
// (its commits replayed on the target) or merged (a merge commit). The repository's branches and
// the user's checkout are never touched here; a conflict is aborted and reported with its files.
import { rm } from 'node:fs/promises';
import { withFallbackIdentity } from '../batch/commit-plan-branch.js';
import { git, GitError } from '../util/git.js';

export type Applied = { ok: true; commit: string } | { ok: false; reason: string };

async function quiet(cwd: string, args: string[]): Promise<void> {
  try {
    await git(cwd, args);
  } catch {
    // cleaning up what may not be there
  }
}

/** A fresh detached worktree at `path` on `commit`, whatever an interrupted landing left there. */
export async function scratchWorktree(repo: string, path: string, commit: string): Promise<void> {
  await quiet(repo, ['worktree', 'remove', '--force', path]);
  await rm(path, { recursive: true, force: true });
  await quiet(repo, ['worktree', 'prune']);
  await git(repo, ['worktree', 'add', '--quiet', '--detach', path, commit]);
}

export async function removeScratch(repo: string, path: string): Promise<void> {
  await quiet(repo, ['worktree', 'remove', '--force', path]);
  await rm(path, { recursive: true, force: true });
  await quiet(repo, ['worktree', 'prune']);
}

async function conflictFiles(cwd: string): Promise<string> {
  try {
    const files = (await git(cwd, ['diff', '--name-only', '--diff-filter=U'])).split('\n').filter(Boolean);
    return files.length ? `: ${files.slice(0, 20).join(', ')}${files.length > 20 ? ', …' : ''}` : '';
  } catch {
    return '';
  }
}

/** Applies `branchCommit` onto `onto` in the scratch worktree at `scratch`. */
export async function applyBranch(o: { repo: string; scratch: string; onto: string; branch: string; branchCommit: string; strategy: 'rebase' | 'merge' }): Promise<Applied> {
  const env = await withFallbackIdentity(o.repo, process.env);
  const opts = { env };
  if (o.strategy === 'rebase') {
    await git(o.scratch, ['checkout', '--quiet', '--detach', o.branchCommit]);
    try {
      await git(o.scratch, ['-c', 'core.hooksPath=/dev/null', 'rebase', '--quiet', '--no-autosquash', o.onto], opts);
    } catch (error) {
      const files = await conflictFiles(o.scratch);
      await quiet(o.scratch, ['rebase', '--abort']);
      return { ok: false, reason: `conflict: ${o.branch} does not rebase cleanly onto the target${files}${files ? '' : ` (${error instanceof GitError ? error.message : String(error)})`}` };
    }
  } else {
    try {
      await git(o.scratch, ['-c', 'core.hooksPath=/dev/null', 'merge', '--quiet', '--no-ff', '--no-edit', '-m', `Merge ${o.branch} (ralph land)`, o.branchCommit], opts);
    } catch (error) {
      const files = await conflictFiles(o.scratch);
      await quiet(o.scratch, ['merge', '--abort']);
      return { ok: false, reason: `conflict: ${o.branch} does not merge cleanly into the target${files}${files ? '' : ` (${error instanceof GitError ? error.message : String(error)})`}` };
    }
  }
  return { ok: true, commit: await git(o.scratch, ['rev-parse', 'HEAD']) };
}
