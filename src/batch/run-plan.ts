// One plan of a batch from launch to its single `.md` result (docs/batch.md#attempts-and-retries): a failed, exhausted,
// off-the-rails, crashed or timed-out attempt is retried once, its partial moved aside first;
// a second failure leaves an error stub.
import { rename } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { RUN_FILES } from '../contract.js';
import { branchHead, commitPlanBranch, planCommitMessage } from './commit-plan-branch.js';
import { squashWorktree } from '../deliver/checkpoint.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { indexFindings, readFindings, verdictOf, type IndexedFinding } from './findings-index.js';
import { moveAside, partialPath, resultPath } from './partial-file.js';
import { receiptFacts, renderErrorStub, renderResult, type ResultFacts } from './result-file.js';
import { runAttempt, type AttemptContext, type AttemptEnd } from './run-attempt.js';
import { readFreshSummary, summaryPathOf } from './summary-file.js';
import { RETRYABLE, type DeliverFn, type Verdict } from './types.js';

export type PlanContext = Omit<AttemptContext, 'attempt'> & {
  /** Number of the first attempt (later than 1 when a resumed batch runs a plan again). */
  firstAttempt: number;
  /** --pr: delivers the plan's branch after its last attempt (docs/deliver.md). */
  deliver?: DeliverFn;
};

/**
 * Commits what the attempt left in its worktree on the plan's branch (docs/first-hour.md) and
 * returns the commit the branch then points at; a failure is a warning, never the plan's end.
 */
async function commitAttempt(ctx: PlanContext, end: AttemptEnd, attempt: number): Promise<string | null> {
  const iso = ctx.isolation;
  if (!iso) return null;
  const runId = end.result?.run ?? basename(end.runDir);
  const message = planCommitMessage({ plan: ctx.plan.id, planPath: ctx.plan.path, outcome: end.outcome, reason: end.reason, run: runId, attempt });
  try {
    await commitPlanBranch({ cwd: iso.worktree, branch: iso.branch, message });
    // deliver.squash: the checkpoints (and the agent's own commits) folded into this one commit.
    if (ctx.checkpoints?.squash) await squashWorktree(iso.worktree, iso.base, message);
  } catch (error) {
    ctx.emit({ type: 'warning', plan: ctx.plan.id, message: `could not commit the work of ${ctx.plan.id} on ${iso.branch}: ${(error as Error).message}` });
  }
  return branchHead(iso.repo, iso.branch);
}

/** Why the run's last rejected claim was rejected, from its events (the verify command and its output's tail). */
function lastRejection(runDir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(runDir, RUN_FILES.events), 'utf8');
  } catch {
    return undefined;
  }
  let reason: string | undefined;
  for (const line of text.split('\n')) {
    if (!line.includes('"type":"gate"')) continue;
    try {
      const e = JSON.parse(line) as { type?: string; accepted?: boolean; reason?: unknown };
      if (e.type === 'gate') reason = e.accepted === false && typeof e.reason === 'string' ? e.reason : undefined;
    } catch {
      // a torn last line: not a gate verdict
    }
  }
  return reason;
}

function factsOf(ctx: PlanContext, end: AttemptEnd, attempt: number, previous: string[], commit: string | null): ResultFacts {
  const rel = (p: string) => relative(ctx.out, p) || '.';
  const rejection = end.outcome === 'complete' ? undefined : lastRejection(end.runDir);
  return {
    ...(rejection !== undefined ? { lastRejection: rejection } : {}),
    outcome: end.outcome,
    reason: end.reason,
    exitCode: end.exitCode,
    attempts: attempt,
    iterations: end.result?.iterations ?? null,
    costUsd: end.result?.costUsd ?? null,
    ...receiptFacts(end.result),
    prUrl: end.result?.prUrl ?? null,
    branch: ctx.isolation?.branch ?? null,
    commit,
    worktree: ctx.isolation ? rel(ctx.isolation.worktree) : null,
    runDir: rel(end.runDir),
    previous: previous.map(rel),
    endedAt: ctx.now().toISOString(),
  };
}

/** The plan's last attempt delivered (--pr): the pull request's URL and a line in the result file. */
async function deliverAttempt(ctx: PlanContext, end: AttemptEnd, facts: ResultFacts): Promise<void> {
  const iso = ctx.isolation;
  if (!ctx.deliver || !iso) return;
  const d = await ctx.deliver({
    planId: ctx.plan.id,
    planPath: end.planPath,
    runDir: end.runDir,
    shownRunDir: relative(ctx.cwd, end.runDir) || '.',
    outcome: end.outcome,
    reason: end.reason,
    repo: iso.repo,
    branch: iso.branch,
    commit: facts.commit,
  });
  if (d.prUrl) facts.prUrl = d.prUrl;
  facts.delivery = { note: d.note, failed: d.failed };
  ctx.emit(d.failed ? { type: 'warning', plan: ctx.plan.id, message: d.note } : { type: 'delivered', plan: ctx.plan.id, prUrl: d.prUrl, note: d.note });
}

async function findingsOf(end: AttemptEnd): Promise<IndexedFinding[]> {
  try {
    return indexFindings(await readFindings(end.runDir));
  } catch {
    return [];
  }
}

/** Appends the result and the sentinel, closes the attempt's writer, and returns the verdict. */
async function finishPartial(end: AttemptEnd, facts: ResultFacts): Promise<Verdict> {
  const findings = await findingsOf(end);
  const verdict = end.outcome === 'invalid' ? 'error' : verdictOf(findings, end.outcome);
  const summaryPath = await summaryPathOf(end.planPath);
  const summary = summaryPath === null ? undefined : await readFreshSummary(summaryPath, end.startedAt);
  end.writer.write(renderResult(facts, findings, verdict, summary));
  end.writer.close();
  return verdict;
}

export async function runPlanWithRetry(ctx: PlanContext): Promise<void> {
  const id = ctx.plan.id;
  const previous: string[] = [];
  let failures = 0;
  for (let attempt = ctx.firstAttempt; ; attempt++) {
    const end = await runAttempt({ ...ctx, attempt });
    const commit = await commitAttempt(ctx, end, attempt);
    const facts = factsOf(ctx, end, attempt, previous, commit);
    const failed = RETRYABLE.has(end.outcome);
    const retry = failed && failures === 0 && !ctx.batchSignal.aborted;
    if (!retry && !ctx.batchSignal.aborted) await deliverAttempt(ctx, end, facts);
    const verdict = await finishPartial(end, facts);

    if (retry) {
      failures++;
      const movedTo = await moveAside(ctx.out, partialPath(ctx.out, id), `${id}.attempt-${attempt}.md`);
      previous.push(movedTo);
      ctx.emit({ type: 'plan-retry', plan: id, attempt: attempt + 1, outcome: end.outcome, reason: end.reason, movedTo });
      continue;
    }

    const final = resultPath(ctx.out, id);
    const stub = (failed && failures > 0) || end.outcome === 'invalid';
    if (stub) {
      // "Earlier attempts" lists only earlier ones; this attempt's own file is named apart.
      const movedTo = await moveAside(ctx.out, partialPath(ctx.out, id), `${id}.attempt-${attempt}.md`);
      await writeFileAtomic(final, renderErrorStub(id, { ...facts, attemptFile: relative(ctx.out, movedTo) }));
      previous.push(movedTo);
    } else {
      await rename(partialPath(ctx.out, id), final);
    }
    ctx.emit({
      type: 'plan-end',
      plan: id,
      attempt,
      outcome: end.outcome,
      reason: end.reason,
      exitCode: end.exitCode,
      verdict: stub ? 'error' : verdict,
      resultFile: final,
      iterations: facts.iterations,
      costUsd: facts.costUsd,
    });
    return;
  }
}
