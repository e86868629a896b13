// A plan's work, committed on its branch when the plan ends (docs/first-hour.md), so a reviewer
// reviews branches, not folders. Also the seam for queue workers: any caller with a worktree on
// a branch can use it.
import { git } from '../util/git.js';

/** Used only when the repository has no identity configured: a commit must not fail for want of one. */
const FALLBACK_IDENTITY = { name: 'ralph', email: 'ralph@localhost' };

/** `env` with ralph's identity where neither `env` nor git's config at `cwd` names one. */
export async function withFallbackIdentity(cwd: string, env: NodeJS.ProcessEnv): Promise<NodeJS.ProcessEnv> {
  const out = { ...env };
  if (!out.GIT_AUTHOR_NAME) out.GIT_AUTHOR_NAME = out.GIT_COMMITTER_NAME = await git(cwd, ['config', '--default', FALLBACK_IDENTITY.name, '--get', 'user.name']);
  if (!out.GIT_AUTHOR_EMAIL) out.GIT_AUTHOR_EMAIL = out.GIT_COMMITTER_EMAIL = await git(cwd, ['config', '--default', FALLBACK_IDENTITY.email, '--get', 'user.email']);
  return out;
}

export class BranchMismatchError extends Error {}

/** The message of an attempt's commit (docs/batch.md "Branch commits"), for local and queued batches alike. */
export function planCommitMessage(o: { plan: string; planPath: string; outcome: string; reason: string; run: string; attempt: number }): string {
  return `ralph: ${o.plan} ${o.outcome} (run ${o.run}, attempt ${o.attempt})\n\nPlan: ${o.planPath}\nOutcome: ${o.outcome}\nReason: ${o.reason}\nRun: ${o.run}\n`;
}

/**
 * Commits every change in the worktree at `cwd` (tracked, and untracked files git does not ignore)
 * on `branch`, with `message`. Returns the new commit, or null when there was nothing to commit:
 * then the branch holds only what the agent committed itself, on top of where it started.
 * Hooks are skipped (`--no-verify`): this records the agent's work as it is, it does not vouch
 * for it. Throws BranchMismatchError, leaving everything as it is, when the worktree is no longer
 * on `branch` (an agent switched branches): ralph never commits onto a branch it did not make.
 */
export async function commitPlanBranch(o: { cwd: string; branch: string; message: string }): Promise<{ commit: string | null }> {
  // One question answers two: which branch the worktree is on, and whether anything changed.
  const status = (await git(o.cwd, ['status', '--porcelain=v2', '--branch', '-z'], { untrimmed: true })).split('\0');
  const onBranch = status.find((l) => l.startsWith('# branch.head '))?.slice('# branch.head '.length);
  if (onBranch !== o.branch) {
    const head = onBranch === undefined || onBranch === '(detached)' ? '(detached HEAD)' : onBranch;
    throw new BranchMismatchError(`the worktree ${o.cwd} is on ${head}, not on ${o.branch}: its changes were left uncommitted`);
  }
  if (!status.some((l) => l !== '' && !l.startsWith('# '))) return { commit: null };
  await git(o.cwd, ['add', '--all']);
  await git(o.cwd, ['commit', '--quiet', '--no-verify', '--no-gpg-sign', '-m', o.message], { env: await withFallbackIdentity(o.cwd, process.env) });
  return { commit: await git(o.cwd, ['rev-parse', 'HEAD']) };
}

/** The commit a branch points at, or null when it does not exist. */
export async function branchHead(repo: string, branch: string): Promise<string | null> {
  try {
    return await git(repo, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`]);
  } catch {
    return null;
  }
}
