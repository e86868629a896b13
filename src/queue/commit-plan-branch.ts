// Commits what a plan's run left in its checkout on the plan's branch (docs/queue.md). Issue 14
// writes the local batch's equivalent in src/batch/commit-plan-branch.ts with the same signature;
// the two are meant to become one.
import { git } from './git.js';

export interface CommitPlanBranchOptions {
  cwd: string;
  branch: string;
  message: string;
}

/** An identity for the commit where the machine has none (a fresh worker host often has none). */
const FALLBACK_IDENTITY = { GIT_AUTHOR_NAME: 'ralph', GIT_AUTHOR_EMAIL: 'ralph@localhost', GIT_COMMITTER_NAME: 'ralph', GIT_COMMITTER_EMAIL: 'ralph@localhost' };

async function hasIdentity(cwd: string): Promise<boolean> {
  try {
    await git(cwd, ['config', 'user.email']);
    return true;
  } catch {
    return false;
  }
}

/** Stages everything and commits it when anything changed; `commit` is null when nothing did. */
export async function commitPlanBranch({ cwd, branch, message }: CommitPlanBranchOptions): Promise<{ commit: string | null }> {
  const head = await git(cwd, ['symbolic-ref', '--quiet', 'HEAD']).catch(() => '');
  if (head !== `refs/heads/${branch}`) throw new Error(`the checkout ${cwd} is not on ${branch} (HEAD: ${head || 'detached'})`);
  await git(cwd, ['add', '--all']);
  const changed = await git(cwd, ['diff', '--cached', '--quiet']).then(
    () => false,
    () => true,
  );
  if (!changed) return { commit: null };
  const env = (await hasIdentity(cwd)) ? process.env : { ...process.env, ...FALLBACK_IDENTITY };
  await git(cwd, ['commit', '--quiet', '--no-verify', '-m', message], { env });
  return { commit: await git(cwd, ['rev-parse', 'HEAD']) };
}
