// `ralph exec --pr` and `--checkpoint` (docs/deliver.md#ralph-exec): a run works in the user's
// checkout, on the user's branch, so its work is committed on a side branch ralph/<plan>/<run>
// that starts at the commit the run started on, without touching the checkout (snapshotCommit).
// The forge is checked before the run; delivery happens after it and is recorded in result.json.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_FILES } from '../contract.js';
import { UsageError } from '../errors.js';
import { planCommitMessage } from '../batch/commit-plan-branch.js';
import type { RunLifecycleFactory } from '../loop/lifecycle.js';
import type { RunResult } from '../loop/types.js';
import { writeJsonAtomic } from '../util/atomic-write.js';
import { git } from '../util/git.js';
import { sideParent, snapshotCommit, withCheckpoints } from './checkpoint.js';
import { deliverPlan, wantsPullRequest, type Delivery, type PrMode } from './deliver-plan.js';
import { openForge, type ForgeSettings } from './open-forge.js';

export interface ExecDelivery {
  /** The run's lifecycle with checkpoints added (or as it was). */
  wrap(inner: RunLifecycleFactory | undefined): RunLifecycleFactory | undefined;
  /** After the run: its work committed on ralph/<plan>/<run> and delivered; null without --pr. */
  finish(result: RunResult, o: { planPath: string; runDir: string }): Promise<Delivery | null>;
}

export function execBranch(plan: string, runId: string): string {
  return `ralph/${plan}/${runId}`;
}

export async function prepareExecDelivery(o: { cwd: string; env: NodeJS.ProcessEnv; settings: ForgeSettings & { squash?: boolean }; pr: PrMode | 'off'; checkpoint: boolean }): Promise<ExecDelivery | null> {
  if (o.pr === 'off' && !o.checkpoint) return null;
  const what = o.pr !== 'off' ? '--pr' : '--checkpoint';
  let repo: string;
  let start: string;
  try {
    repo = await git(o.cwd, ['rev-parse', '--show-toplevel']);
  } catch {
    throw new UsageError(`${what} commits the run's work on a branch, and ${o.cwd} is not in a git repository`);
  }
  try {
    start = await git(repo, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  } catch {
    throw new UsageError(`${what}: ${repo} has no commit yet to start the run's branch from`, 'commit once first');
  }
  const forge = o.pr !== 'off' ? await openForge(repo, o.settings, o.env) : null;
  return {
    wrap: (inner) => (o.checkpoint ? withCheckpoints(inner, { kind: 'side-branch', repo, branch: execBranch, start }) : inner),
    async finish(result, { planPath, runDir }) {
      if (!forge || o.pr === 'off') return null;
      const branch = execBranch(result.plan, result.run);
      let commit: string | null = null;
      if (wantsPullRequest(o.pr, result.outcome)) {
        const message = planCommitMessage({ plan: result.plan, planPath, outcome: result.outcome, reason: result.reason, run: result.run, attempt: 1 });
        try {
          // squash: one commit from the start, whatever checkpoints there were; else on top of the last checkpoint.
          const parent = o.settings.squash ? start : await sideParent(repo, branch, start);
          commit = (await snapshotCommit({ repo, branch, parent, message })) ?? (parent === start ? null : parent);
        } catch (error) {
          return record(runDir, { prUrl: null, note: `pull request not opened: the run's work could not be committed on ${branch}: ${(error as Error).message}`, failed: true });
        }
      }
      const d = await deliverPlan(forge, o.pr, { planId: result.plan, planPath, runDir, outcome: result.outcome, repo, branch, commit });
      return record(runDir, d);
    },
  };
}

/** prUrl and the delivery line written into the run's result.json, as a batch writes them into its result file. */
async function record(runDir: string, d: Delivery): Promise<Delivery> {
  const path = join(runDir, RUN_FILES.result);
  try {
    const stored = JSON.parse(await readFile(path, 'utf8')) as RunResult;
    await writeJsonAtomic(path, { ...stored, ...(d.prUrl ? { prUrl: d.prUrl } : {}), delivery: { note: d.note, failed: d.failed } });
  } catch {
    // the result stays as the run wrote it; the line is still printed
  }
  return d;
}
