// Commits what a plan's run left in its checkout on the plan's branch (docs/queue.md). Issue 14
// writes the local batch's equivalent in src/batch/commit-plan-branch.ts with the same signature;
// the two are meant to become one.
import { git, GitError } from './git.js';

export interface CommitPlanBranchOptions {
  cwd: string;
  branch: string;
  message: string;
}

/** An identity for the commit where the machine has none (a fresh worker host often has none). */
const FALLBACK_IDENTITY = { GIT_AUTHOR_NAME: 'ralph', GIT_AUTHOR_EMAIL: 'ralph@localhost', GIT_COMMITTER_NAME: 'ralph', GIT_COMMITTER_EMAIL: 'ralph@localhost' };

/**
 * Whether git has an identity for commits, asked once per process: a worker's clones are made by
 * ralph and hold no identity of their own, so the answer is the machine's git config.
 */
let identity: Promise<boolean> | undefined;

function hasIdentity(cwd: string): Promise<boolean> {
  if (process.env.GIT_COMMITTER_EMAIL && process.env.GIT_AUTHOR_EMAIL) return Promise.resolve(true);
  identity ??= git(cwd, ['config', 'user.email']).then(
    () => true,
    () => false,
  );
  return identity;
}

/** Stages everything and commits it when anything changed; `commit` is null when nothing did. */
export async function commitPlanBranch({ cwd, branch, message }: CommitPlanBranchOptions): Promise<{ commit: string | null }> {
  await git(cwd, ['add', '--all']);
  const env = (await hasIdentity(cwd)) ? process.env : { ...process.env, ...FALLBACK_IDENTITY };
  try {
    await git(cwd, ['commit', '--quiet', '--no-verify', '-m', message], { env });
  } catch (error) {
    // git commit exits 1 with nothing staged: not an error here (git() runs git with LC_ALL=C).
    if (error instanceof GitError && /nothing (added )?to commit|no changes added to commit/.test(error.stdout)) return { commit: null };
    throw new Error(`cannot commit on ${branch} in ${cwd}: ${(error as Error).message}`);
  }
  return { commit: await git(cwd, ['rev-parse', 'HEAD']) };
}
