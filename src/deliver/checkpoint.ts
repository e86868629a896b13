// Checkpoints (docs/deliver.md#checkpoints): a commit after every iteration that changed files,
// on the plan's branch, with the iteration's number and decision in its message, so a person can
// read the night step by step and go back to any step. Made by wrapping the run's lifecycle (the
// loop awaits afterIteration before the next iteration starts), so the loop itself is unchanged.
// A checkpoint that fails is a warning on the bus; it never stops the run.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { branchHead, commitPlanBranch, withFallbackIdentity } from '../batch/commit-plan-branch.js';
import type { RunLifecycle, RunLifecycleFactory } from '../loop/lifecycle.js';
import { git } from '../util/git.js';

export function checkpointMessage(plan: string, iteration: number, decision: string): string {
  return `ralph checkpoint: ${plan} iteration ${iteration} (decision: ${decision})\n\nPlan: ${plan}\nIteration: ${iteration}\nDecision: ${decision}\n`;
}

/**
 * The working tree at `repo` (tracked and untracked files git does not ignore) committed onto
 * `branch` on top of `parent`, without touching the checkout: its own index in a temporary file,
 * commit-tree, update-ref. For exec, whose run works in the user's checkout on the user's branch.
 * Returns the new commit, or null when the tree is the parent's.
 */
export async function snapshotCommit(o: { repo: string; branch: string; parent: string; message: string }): Promise<string | null> {
  const index = join(tmpdir(), `ralph-index-${randomBytes(6).toString('hex')}`);
  const env = { ...(await withFallbackIdentity(o.repo, process.env)), GIT_INDEX_FILE: index };
  try {
    await git(o.repo, ['read-tree', o.parent], { env });
    await git(o.repo, ['add', '--all'], { env });
    const tree = await git(o.repo, ['write-tree'], { env });
    if (tree === (await git(o.repo, ['rev-parse', `${o.parent}^{tree}`]))) return null;
    const commit = await git(o.repo, ['commit-tree', '--no-gpg-sign', tree, '-p', o.parent, '-m', o.message], { env });
    await git(o.repo, ['update-ref', `refs/heads/${o.branch}`, commit]);
    return commit;
  } finally {
    await rm(index, { force: true });
  }
}

/**
 * Where checkpoints go: a worktree on the plan's branch (batch), a side branch of the user's
 * checkout (exec), or the caller's own commit of its checkout (a queue worker, whose git calls on
 * one clone take turns).
 */
export type CheckpointTarget =
  | { kind: 'worktree'; worktree: string; branch: string }
  | { kind: 'side-branch'; repo: string; branch: (plan: string, runId: string) => string; start: string }
  | { kind: 'commit'; commit: (message: string) => Promise<unknown> };

/** The branch head a side branch continues from: its own head when it exists (a resumed run), else the start. */
export async function sideParent(repo: string, branch: string, start: string): Promise<string> {
  return (await branchHead(repo, branch)) ?? start;
}

export function withCheckpoints(inner: RunLifecycleFactory | undefined, target: CheckpointTarget): RunLifecycleFactory {
  return (facts, bus) => {
    const wrapped: RunLifecycle | undefined = inner?.(facts, bus);
    const checkpoint = async (iteration: number, decision: string) => {
      const message = checkpointMessage(facts.plan, iteration, decision);
      try {
        if (target.kind === 'worktree') {
          await commitPlanBranch({ cwd: target.worktree, branch: target.branch, message });
        } else if (target.kind === 'commit') {
          await target.commit(message);
        } else {
          const branch = target.branch(facts.plan, facts.runId);
          await snapshotCommit({ repo: target.repo, branch, parent: await sideParent(target.repo, branch, target.start), message });
        }
      } catch (error) {
        bus.emitEvent({ type: 'warning', iteration, message: `checkpoint after iteration ${iteration} not committed: ${(error as Error).message}` });
      }
    };
    return {
      beforeIteration: (n) => wrapped?.beforeIteration(n) ?? Promise.resolve(),
      async afterIteration(n, decision) {
        // The checkpoint first: the hooks after it see the iteration's work committed.
        await checkpoint(n, decision);
        return wrapped?.afterIteration(n, decision);
      },
      end: (result) => wrapped?.end(result) ?? Promise.resolve(),
    };
  };
}

/** With `squash`: the branch's checkpoints folded into one commit on top of `base` (the worktree keeps its files). */
export async function squashWorktree(worktree: string, base: string, message: string): Promise<void> {
  await git(worktree, ['reset', '--quiet', '--soft', base]);
  const staged = await git(worktree, ['diff', '--cached', '--quiet']).then(
    () => false,
    () => true,
  );
  if (staged) await git(worktree, ['commit', '--quiet', '--no-verify', '--no-gpg-sign', '-m', message], { env: await withFallbackIdentity(worktree, process.env) });
}
