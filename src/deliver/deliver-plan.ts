// A finished plan's branch delivered as a pull request (docs/deliver.md): pushed to the remote
// under a name that stays the same from one run of the plan to the next (ralph/pr/<plan>), then
// its pull request opened, or updated when one is already open, with a body written from the
// run's facts. Whatever fails here is recorded and returned; the plan's outcome never changes.
import { git } from '../util/git.js';
import { ForgeError, type PullRequest } from './forge.js';
import type { OpenedForge } from './open-forge.js';
import { prBody, prTitle } from './pr-body.js';
import { readRunFacts, withRecordedOutcome, type RunFacts } from './run-facts.js';

/** ready: pull requests for accepted plans; draft: also drafts for plans that ended without being accepted. */
export type PrMode = 'ready' | 'draft';

/** Outcomes that get a draft with --pr draft: the plan got somewhere a person should look at. */
const DRAFT_OUTCOMES = new Set(['failed', 'exhausted', 'blocked', 'off_rails', 'timed_out', 'crashed']);

const PUSH_TIMEOUT_MS = 120_000;

export interface PlanToDeliver {
  planId: string;
  /** The plan file the run read (its summary path and verify commands come from it). */
  planPath: string;
  runDir: string;
  /** The run folder as the body shows it. */
  shownRunDir?: string;
  outcome: string;
  /** Why it ended so, as the batch recorded it; the body shows it (and the outcome) over result.json's. */
  reason?: string;
  /** The repository the branch is in. */
  repo: string;
  /** The plan's local branch, and the commit ralph proposes (its head when the plan ended). */
  branch: string;
  commit: string | null;
  /**
   * A queued batch's plan (docs/queue.md): its branch is on this git remote (URL or name), pushed
   * by a worker, and fetched from there first; the facts for the body came with the worker's report.
   */
  fetchFrom?: string;
  facts?: RunFacts;
}

export interface Delivery {
  prUrl: string | null;
  /** One line for the result file and the report: what was done, or why nothing was. */
  note: string;
  /** True when delivery was wanted and failed (the branch may be pushed all the same). */
  failed: boolean;
}

export function prBranch(planId: string): string {
  return `ralph/pr/${planId}`;
}

// Fetch and push of several plans of a batch, one at a time: they share the repository's locks.
let queue: Promise<unknown> = Promise.resolve();

function serially<T>(fn: () => Promise<T>): Promise<T> {
  const step = queue.then(fn);
  queue = step.catch(() => undefined);
  return step;
}

async function commitsBeyondBase(repo: string, remote: string, base: string, commit: string): Promise<number> {
  const ref = `refs/ralph/deliver-base`;
  await git(repo, ['fetch', '--quiet', '--no-tags', remote, `+refs/heads/${base}:${ref}`], { timeoutMs: PUSH_TIMEOUT_MS });
  return Number(await git(repo, ['rev-list', '--count', `${ref}..${commit}`]));
}

/** Whether a plan that ended `outcome` gets a pull request under `mode`. */
export function wantsPullRequest(mode: PrMode, outcome: string): boolean {
  return outcome === 'complete' || (mode === 'draft' && DRAFT_OUTCOMES.has(outcome));
}

export async function deliverPlan(forge: OpenedForge, mode: PrMode, plan: PlanToDeliver): Promise<Delivery> {
  const draft = plan.outcome !== 'complete';
  if (!wantsPullRequest(mode, plan.outcome)) {
    return { prUrl: null, note: `no pull request: the plan ended ${plan.outcome}${mode === 'draft' ? '' : ' (--pr draft opens drafts for failed, exhausted and blocked plans)'}`, failed: false };
  }
  if (plan.commit === null) return { prUrl: null, note: `no pull request: the plan has no branch ${plan.branch}`, failed: false };
  const head = prBranch(plan.planId);
  let pushed = false;
  try {
    const beyond = await serially(async () => {
      if (plan.fetchFrom !== undefined) {
        await git(plan.repo, ['fetch', '--quiet', '--no-tags', plan.fetchFrom, `+refs/heads/${plan.branch}:refs/ralph/deliver-head`], { timeoutMs: PUSH_TIMEOUT_MS });
      }
      const n = await commitsBeyondBase(plan.repo, forge.remote, forge.base, plan.commit!);
      if (n > 0) {
        // Forced: the branch is ralph's, and a plan run again starts from the base again.
        await git(plan.repo, ['push', '--quiet', '--force', '--no-verify', forge.remote, `${plan.commit}:refs/heads/${head}`], { timeoutMs: PUSH_TIMEOUT_MS });
        pushed = true;
      }
      return n;
    });
    if (beyond === 0) return { prUrl: null, note: `no pull request: ${plan.branch} has no commit beyond ${forge.remote}/${forge.base}`, failed: false };
    const read = plan.facts ?? (await readRunFacts({ runDir: plan.runDir, planPath: plan.planPath, ...(plan.shownRunDir ? { shownRunDir: plan.shownRunDir } : {}) }));
    const facts = withRecordedOutcome(read, plan.outcome, plan.reason);
    const title = prTitle(facts);
    const body = prBody(facts, { draft, branch: plan.branch, commit: plan.commit });
    let existing = await forge.forge.findOpenPull(head);
    let pull: PullRequest;
    let action: string;
    if (existing === null) {
      try {
        pull = await forge.forge.openPull({ head, base: forge.base, title, body, draft });
        action = draft ? 'opened as a draft' : 'opened';
      } catch (error) {
        // Opened meanwhile (another machine, or a listing that lagged): update that one instead.
        if (!(error instanceof ForgeError && error.kind === 'exists')) throw error;
        existing = await forge.forge.findOpenPull(head);
        if (existing === null) throw error;
      }
    }
    if (existing !== null) {
      pull = await forge.forge.updatePull(existing.number, { title, body });
      // Draft and ready are switched through GitHub's GraphQL API only; ralph says so instead.
      action = existing.draft && !draft ? 'updated (still a draft: mark it ready for review)' : 'updated';
    }
    return { prUrl: pull!.url, note: `pull request #${pull!.number} ${action!}`, failed: false };
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { prUrl: null, note: `pull request not opened: ${why}${pushed ? `; the branch is pushed as ${head}` : ''}`, failed: true };
  }
}
