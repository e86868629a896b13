// The shapes of a batch: what it is asked to do, what each plan ended with, and the runner seam
// (the loop's runPlan, injected so tests and the pool never depend on a real agent).
import type { Outcome } from '../contract.js';
import type { RunEvent } from '../loop/events.js';
import type { RunExtras, RunLifecycleFactory } from '../loop/lifecycle.js';
import type { ExecOptions, RunResult } from '../loop/types.js';
import type { SharedLimits } from '../loop/limit-wait.js';

export type RunPlanFn = (
  options: ExecOptions,
  hooks?: RunExtras & {
    signal?: AbortSignal;
    onEvent?: (e: RunEvent) => void;
    wantOutput?: boolean;
    sharedLimits?: SharedLimits;
    /** Wraps the run's lifecycle once whoever adds the project's hooks has (a queue worker's checkpoints); applied by that caller. */
    wrapLifecycle?: (inner: RunLifecycleFactory | undefined) => RunLifecycleFactory | undefined;
  },
) => Promise<RunResult>;

export type IsolateMode = 'worktree' | 'none';

/**
 * Called once a plan's last attempt has ended and its work is committed on its branch: delivers
 * the branch (a pull request, docs/deliver.md) and says what it did in one line. It never throws;
 * a failure is `failed: true` and never changes the plan's outcome.
 */
export type DeliverFn = (o: { planId: string; planPath: string; runDir: string; shownRunDir: string; outcome: AttemptOutcome; reason: string; repo: string; branch: string; commit: string | null }) => Promise<{
  prUrl: string | null;
  note: string;
  failed: boolean;
}>;

/** Executor options shared by every plan of the batch (no planPath/runDir/resume: batch sets those). */
export type SharedExecOptions = Omit<Partial<ExecOptions>, 'planPath' | 'runDir' | 'resume'>;

/** One plan of the batch, as stored in batch.json. */
export interface BatchPlan {
  id: string;
  /** Absolute path of the plan file in the original checkout. */
  path: string;
}

/**
 * How one attempt ended. `crashed`: runPlan threw something other than a usage error;
 * `timed_out`: --plan-timeout fired; `invalid`: runPlan refused the plan (usage error).
 */
export type AttemptOutcome = Outcome | 'crashed' | 'timed_out' | 'invalid';

export const RETRYABLE: ReadonlySet<AttemptOutcome> = new Set<AttemptOutcome>([
  'failed',
  'exhausted',
  'off_rails',
  'crashed',
  'timed_out',
]);

export type Verdict = 'safe' | 'needs-changes' | 'risky' | 'error';

/** A plan's row in index.md and batch.json, read back from its `.md` result file. */
export interface PlanRow {
  plan: string;
  /** null: the plan was never launched (the batch was interrupted first). */
  outcome: AttemptOutcome | null;
  exitCode: number | null;
  attempts: number;
  iterations: number | null;
  costUsd: number | null;
  /** "tasks 2/3 verified", for a plan whose tasks have checks. */
  tasksVerified?: string;
  verdict: Verdict | null;
  prUrl: string | null;
  /** What delivery did (docs/deliver.md): "pull request #3 opened", or why it failed; absent without --pr. */
  delivery?: string;
  branch: string | null;
  /** The branch's commit when the plan ended: the plan's work committed on it (docs/first-hour.md). */
  commit: string | null;
  worktree: string | null;
  /** Relative to the batch folder. */
  resultFile: string | null;
  warnings: string[];
  /** The receipt tables of the result file, as written there (Markdown lines): for index.md only, not batch.json. */
  receipts?: string[];
}

/** What `ralph batch` prints and batch.json ends with. */
export interface BatchSummary {
  batchId: string;
  out: string;
  total: number;
  complete: number;
  interrupted: boolean;
  exitCode: number;
  rows: PlanRow[];
}
