// One attempt of one plan on a worker (docs/queue.md): ralph's own loop in the job's checkout,
// the work committed on the plan's branch and pushed, and a report holding the outcome,
// result.json, the findings and the per-plan result file, in the local batch's format.
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { RUN_FILES } from '../contract.js';
import {
  indexFindings,
  progressLine,
  readFindings,
  readFreshSummary,
  renderHeader,
  receiptFacts,
  renderResult,
  summaryPathOf,
  verdictOf,
  type RunPlanFn,
} from '../batch/index.js';
import type { RunEvent } from '../loop/index.js';
import type { SharedLimits } from '../loop/limit-wait.js';
import { planCommitMessage } from '../batch/commit-plan-branch.js';
import { attemptExitCode, endingOf, message, runBounded, STRAGGLER_GRACE_MS } from '../batch/bounded-run.js';
import { readRunFacts } from '../deliver/run-facts.js';
import { withCheckpoints } from '../deliver/checkpoint.js';
import type { RunLifecycleFactory } from '../loop/lifecycle.js';
import type { AttemptReport, QueueJobData, WorkerRef } from './job.js';

/** At most this much of findings.jsonl travels back; the rest stays on the worker. */
const MAX_FINDINGS_BYTES = 4 * 1024 * 1024;
/** Progress lines kept for the result file; a run of thousands of iterations keeps its last ones. */
const MAX_PROGRESS_LINES = 2_000;
/** BLOCKED.md travels back for a draft pull request's evidence, which shows only its start. */
const MAX_BLOCKED_CHARS = 16_000;

export interface JobAttemptInput {
  data: QueueJobData;
  attempt: number;
  worker: WorkerRef;
  checkout: string;
  runDir: string;
  branch: string;
  /** Earlier attempts' files in the coordinator's batch folder, for the result file. */
  previous: string[];
  runPlan: RunPlanFn;
  /** The worker's plans wait for one agent's limit together, as a local batch's do (docs/overnight.md). */
  sharedLimits: SharedLimits;
  signal: AbortSignal;
  onEvent: (e: RunEvent) => void;
  /** Whether the worker handed this attempt back to the queue (a second SIGTERM, a sick workdir). */
  handedBack: () => boolean;
  /** Why it was handed back, for the result file of the attempt. */
  handBackReason?: () => string;
  /** Commits the checkout's changes on its branch (commitPlanBranch, run where the worker's git calls allow). */
  commit: (message: string) => Promise<{ commit: string | null }>;
  /** With the job's checkpoints: commits the checkout's changes after an iteration (docs/deliver.md#checkpoints). */
  checkpoint?: (message: string) => Promise<unknown>;
  /** The checkout's HEAD commit. */
  head: () => Promise<string>;
  push: (head: string) => Promise<void>;
  now: () => Date;
}

async function readCapped(path: string, max: number): Promise<string> {
  try {
    const text = await readFile(path, 'utf8');
    if (text.length <= max) return text;
    return text.slice(0, text.lastIndexOf('\n', max) + 1);
  } catch {
    return '';
  }
}

export async function runJobAttempt(input: JobAttemptInput): Promise<Omit<AttemptReport, 'final' | 'batchId'>> {
  const { data, attempt, worker } = input;
  const startedAt = input.now();
  const where = (p: string) => `${worker.host}:${p}`;
  const lines: string[] = [];
  let dropped = 0;
  const line = (text: string) => {
    lines.push(text);
    if (lines.length > MAX_PROGRESS_LINES) {
      lines.shift();
      dropped++;
    }
  };
  line(`- ${startedAt.toISOString().slice(11, 19)} running on worker ${worker.host} (pid ${worker.pid})`);
  const planPath = join(input.checkout, data.planPath);
  // Paths in a job are relative to the checkout (checked as such when the job was opened).
  const cwd = data.exec.cwd !== undefined ? join(input.checkout, data.exec.cwd) : input.checkout;
  const promptsDir = data.exec.promptsDir !== undefined ? join(input.checkout, data.exec.promptsDir) : undefined;

  const onEvent = (event: RunEvent) => {
    try {
      const text = progressLine(event, input.now());
      if (text !== null) line(text);
      input.onEvent(event);
    } catch {
      // progress must never break the run
    }
  };
  const checkpoint = data.checkpoints ? input.checkpoint : undefined;
  const wrapLifecycle = checkpoint ? (inner: RunLifecycleFactory | undefined) => withCheckpoints(inner, { kind: 'commit', commit: checkpoint }) : undefined;
  const planTimeoutMs = data.planTimeoutMs ?? undefined;
  const graceMs = STRAGGLER_GRACE_MS;
  const run = await runBounded({
    signal: input.signal,
    planTimeoutMs,
    graceMs,
    run: (signal) => input.runPlan({ ...data.exec, planPath, cwd, ...(promptsDir ? { promptsDir } : {}), runDir: input.runDir }, { signal, onEvent, sharedLimits: input.sharedLimits, ...(wrapLifecycle ? { wrapLifecycle } : {}) }),
  });
  const ending = endingOf(run, planTimeoutMs, graceMs);
  const { result } = ending;
  const handBack = input.handedBack() ? (input.handBackReason?.() ?? null) : null;
  const outcome = handBack === null ? ending.outcome : 'interrupted';
  const reason = handBack ?? ending.reason;

  let pushed: string | null = null;
  let pushError: string | null = null;
  const clock = () => input.now().toISOString().slice(11, 19);
  // A plan handed back to the queue starts afresh elsewhere: nothing of this attempt is kept.
  if (!input.handedBack()) {
    try {
      const runId = result?.run ?? basename(input.runDir);
      const { commit } = await input.commit(planCommitMessage({ plan: data.plan, planPath: data.planPath, outcome, reason, run: runId, attempt }));
      if (commit) line(`- ${clock()} committed ${commit.slice(0, 12)} on ${input.branch}`);
      // The agent may have committed too: push whatever the branch now points at.
      const head = commit ?? (await input.head());
      await input.push(head);
      pushed = head;
      line(`- ${clock()} pushed ${input.branch} at ${pushed.slice(0, 12)}`);
    } catch (error) {
      pushError = message(error);
      line(`- ${clock()} warning: the branch was not pushed: ${pushError}`);
    }
  }

  const findings = indexFindings(await readFindings(input.runDir).catch(() => []));
  const verdict = outcome === 'invalid' ? 'error' : verdictOf(findings, outcome);
  const summaryPath = await summaryPathOf(planPath);
  const summary = summaryPath === null ? undefined : await readFreshSummary(summaryPath, startedAt);
  const endedAt = input.now().toISOString();
  const exitCode = attemptExitCode(outcome, result);
  const header = renderHeader({ plan: data.plan, planPath: data.planPath, attempt, startedAt: startedAt.toISOString(), runDir: where(input.runDir), branch: input.branch, worktree: where(input.checkout) });
  const text =
    header +
    (dropped ? `- (${dropped} earlier progress lines are in the run directory on the worker)\n` : '') +
    lines.map((l) => `${l}\n`).join('') +
    renderResult(
      {
        outcome,
        reason,
        exitCode,
        attempts: attempt,
        iterations: result?.iterations ?? null,
        costUsd: result?.costUsd ?? null,
        ...receiptFacts(result),
        prUrl: result?.prUrl ?? null,
        branch: input.branch,
        commit: pushed,
        worktree: where(input.checkout),
        runDir: where(input.runDir),
        previous: input.previous,
        endedAt,
      },
      findings,
      verdict,
      summary,
    );
  return {
    facts: await readRunFacts({ runDir: input.runDir, planPath, shownRunDir: where(input.runDir) })
      .then((f) => ({ ...f, blocked: f.blocked?.slice(0, MAX_BLOCKED_CHARS) ?? null }))
      .catch(() => null),
    plan: data.plan,
    attempt,
    outcome,
    reason,
    exitCode,
    iterations: result?.iterations ?? null,
    costUsd: result?.costUsd ?? null,
    verdict,
    worker,
    runDir: input.runDir,
    checkout: input.checkout,
    branch: input.branch,
    pushed,
    pushError,
    result,
    findings: await readCapped(join(input.runDir, RUN_FILES.findings), MAX_FINDINGS_BYTES),
    text,
    endedAt,
  };
}
