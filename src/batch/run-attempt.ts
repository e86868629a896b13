// One attempt of one plan: its partial file, its isolation, its timeout, and how it ended. It
// never throws: whatever happens becomes an AttemptEnd.
import { join, relative } from 'node:path';
import type { SharedLimits } from '../loop/limit-wait.js';
import type { RunEvent } from '../loop/events.js';
import type { RunExtras } from '../loop/lifecycle.js';
import type { RunResult } from '../loop/types.js';
import type { BatchEvent } from './events.js';
import { partialPath, PartialWriter } from './partial-file.js';
import { progressLine, renderHeader } from './result-file.js';
import type { AttemptOutcome, BatchPlan, RunPlanFn, SharedExecOptions } from './types.js';
import { ensureWorktree, insideWorktree, planInWorktree } from './worktree.js';
import { attemptExitCode, endingOf, message, runBounded } from './bounded-run.js';
import { withCheckpoints } from '../deliver/checkpoint.js';

export const RUNS_DIR = 'runs';
export const WORKTREES_DIR = 'worktrees';

export function runDirName(plan: string, attempt: number): string {
  return attempt === 1 ? plan : `${plan}.${attempt}`;
}

export interface Isolation {
  repo: string;
  worktree: string;
  branch: string;
  /** The commit a new worktree starts from. */
  base: string;
}

export interface AttemptContext {
  out: string;
  plan: BatchPlan;
  attempt: number;
  cwd: string;
  exec: SharedExecOptions;
  runPlan: RunPlanFn;
  /** Plans with the same agent wait for its usage limits together (docs/overnight.md). */
  sharedLimits: SharedLimits;
  wantOutput: boolean;
  batchSignal: AbortSignal;
  planTimeoutMs: number | undefined;
  /** How long a run may take to stop once aborted before it is left behind as a straggler. */
  stragglerGraceMs: number;
  isolation: Isolation | null;
  /** The config file's agents, defaults and hooks for the run (docs/config.md). */
  extras?: RunExtras;
  /** --checkpoint: a commit on the plan's branch after every iteration that changed files (docs/deliver.md#checkpoints). */
  checkpoints?: { squash: boolean };
  emit: (e: BatchEvent) => void;
  now: () => Date;
}

export interface AttemptEnd {
  outcome: AttemptOutcome;
  reason: string;
  exitCode: number | null;
  result: RunResult | null;
  writer: PartialWriter;
  startedAt: Date;
  runDir: string;
  planPath: string;
}

export async function runAttempt(ctx: AttemptContext): Promise<AttemptEnd> {
  const { out, plan, attempt } = ctx;
  const startedAt = ctx.now();
  const runDir = join(out, RUNS_DIR, runDirName(plan.id, attempt));
  const rel = (p: string) => relative(out, p) || '.';
  const iso = ctx.isolation;
  const writer = new PartialWriter(
    partialPath(out, plan.id),
    renderHeader({
      plan: plan.id,
      planPath: plan.path,
      attempt,
      startedAt: startedAt.toISOString(),
      runDir: rel(runDir),
      branch: iso?.branch ?? null,
      worktree: iso ? rel(iso.worktree) : null,
    }),
  );
  const ended = (outcome: AttemptOutcome, reason: string, result: RunResult | null, planPath: string): AttemptEnd => ({
    outcome,
    reason,
    exitCode: attemptExitCode(outcome, result),
    result,
    writer,
    startedAt,
    runDir,
    planPath,
  });

  let planPath = plan.path;
  let cwd = ctx.exec.cwd ?? ctx.cwd;
  if (iso) {
    try {
      await ensureWorktree(iso.repo, iso.worktree, iso.branch, iso.base);
      planPath = await planInWorktree(iso.repo, iso.worktree, plan.path);
      cwd = insideWorktree(iso.repo, iso.worktree, cwd) ?? iso.worktree;
    } catch (error) {
      writer.line(`- ${ctx.now().toISOString().slice(11, 19)} ${message(error)}`);
      return ended('crashed', message(error), null, planPath);
    }
  }
  ctx.emit({ type: 'plan-start', plan: plan.id, attempt, runDir, cwd, branch: iso?.branch ?? null, worktree: iso?.worktree ?? null });

  const onEvent = (event: RunEvent) => {
    // A straggler's events (after the attempt ended) go nowhere.
    if (writer.closed) return;
    try {
      const line = progressLine(event, ctx.now());
      if (line !== null) writer.line(line);
      ctx.emit({ type: 'run', plan: plan.id, attempt, event });
    } catch {
      // rendering progress must never break the run
    }
  };
  const extras: RunExtras = { ...ctx.extras };
  if (iso && ctx.checkpoints) extras.lifecycle = withCheckpoints(ctx.extras?.lifecycle, { kind: 'worktree', worktree: iso.worktree, branch: iso.branch });
  const run = await runBounded({
    signal: ctx.batchSignal,
    planTimeoutMs: ctx.planTimeoutMs,
    graceMs: ctx.stragglerGraceMs,
    run: (signal) => ctx.runPlan({ ...ctx.exec, planPath, cwd, runDir }, { ...extras, signal, onEvent, wantOutput: ctx.wantOutput, sharedLimits: ctx.sharedLimits }),
  });
  const { outcome, reason, result } = endingOf(run, ctx.planTimeoutMs, ctx.stragglerGraceMs);
  return ended(outcome, reason, result, planPath);
}
