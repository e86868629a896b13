// `ralph batch` as a function: plans in, one `.md` result per launched plan, index.md,
// batch.json and report.md out. It never prints and never installs signal handlers: the caller
// passes an AbortSignal and subscribes to events.
import { join, resolve } from 'node:path';
import { STRAGGLER_GRACE_MS } from './bounded-run.js';
import { UsageError } from '../errors.js';
import { newBatchFile, readBatchFile, writeBatchFile, type BatchFile } from './batch-file.js';
import type { BatchEvent } from './events.js';
import { finishBatch } from './finish-batch.js';
import { resolvePlans } from './plan-list.js';
import { runPool } from './pool.js';
import type { ReportWriter } from './report.js';
import { nextAttempt, prepareResume } from './resume.js';
import { WORKTREES_DIR, type Isolation } from './run-attempt.js';
import { runPlanWithRetry } from './run-plan.js';
import { SharedLimits } from '../loop/limit-wait.js';
import type { BatchPlan, BatchSummary, DeliverFn, IsolateMode, RunPlanFn, SharedExecOptions } from './types.js';
import { branchName, gitTopLevel, hasHead } from './worktree.js';
import type { RunExtras } from '../loop/lifecycle.js';
import { preflight } from './preflight.js';
import { batchIdAt, chooseBatchOut } from './batch-out.js';

export interface BatchOptions {
  /** Where the batch starts; relative paths resolve against it. */
  cwd: string;
  /** Plan files and folders (a new batch). */
  plans?: string[];
  /** The folder of an earlier batch to resume. */
  resume?: string;
  out?: string;
  concurrency?: number;
  isolate?: IsolateMode;
  planTimeoutMs?: number;
  exec?: SharedExecOptions;
  /** Run plans whose files differ from the last commit: worktrees start from a snapshot of the working tree. */
  allowDirty?: boolean;
}

export interface BatchDeps {
  runPlan?: RunPlanFn;
  signal?: AbortSignal;
  onEvent?: (e: BatchEvent) => void;
  now?: () => Date;
  /** How long an aborted run may take to stop before the batch moves on without it. */
  stragglerGraceMs?: number;
  writeReport?: ReportWriter;
  /** Whether the runs decode their output into `output` events (only --json shows them). */
  wantOutput?: boolean;
  /** Handed to every plan's run: the config file's agents and defaults, hooks, hidden variables (docs/config.md). */
  extras?: RunExtras;
  /** --pr: delivers each plan's branch after its last attempt (docs/deliver.md); needs worktree isolation. */
  deliver?: DeliverFn;
  /** --checkpoint: a commit after every iteration that changed files; `squash` folds them at the end. */
  checkpoints?: { squash: boolean };
}

/** The loop's runPlan, loaded when first needed so the batch module does not pull it in for tests. */
export async function loadRunPlan(): Promise<RunPlanFn> {
  return (await import('../loop/index.js')).runPlan;
}

function checkConcurrency(n: number | undefined): number {
  const c = n ?? 1;
  if (!Number.isInteger(c) || c < 1) throw new UsageError(`--concurrency must be a whole number of at least 1 (got ${n})`);
  return c;
}

async function chooseIsolation(cwd: string, concurrency: number, asked: IsolateMode | undefined): Promise<{ isolate: IsolateMode; repo: string | null }> {
  const isolate = asked ?? (concurrency > 1 ? 'worktree' : 'none');
  if (isolate === 'none') return { isolate, repo: null };
  const repo = await gitTopLevel(cwd);
  if (!repo) {
    throw new UsageError(
      asked ? `--isolate worktree needs a git repository, and ${cwd} is not in one` : `running ${concurrency} plans at once needs a git repository (each plan gets its own worktree), and ${cwd} is not in one`,
      'run inside a git repository, use --concurrency 1, or pass --isolate none to let plans share the folder',
    );
  }
  if (!(await hasHead(repo))) {
    throw new UsageError(`${repo} has no commit yet, so there is nothing to make worktrees from`, 'commit once, or pass --isolate none');
  }
  return { isolate, repo };
}

async function newBatch(options: BatchOptions, now: () => Date): Promise<BatchFile> {
  const concurrency = checkConcurrency(options.concurrency);
  const plans = await resolvePlans(options.plans ?? [], options.cwd);
  const { isolate, repo } = await chooseIsolation(options.cwd, concurrency, options.isolate);
  const at = now();
  const { out, batchId } = await chooseBatchOut(options.cwd, options.out, batchIdAt(at), repo);
  const { base } = await preflight({ cwd: options.cwd, plans, exec: options.exec ?? {}, isolate, repo, allowDirty: options.allowDirty === true, batchId });
  const batchOptions = { concurrency, isolate, planTimeoutMs: options.planTimeoutMs ?? null, exec: options.exec ?? {} };
  return newBatchFile({ cwd: options.cwd, out, batchId, at, options: batchOptions, repo, base, plans });
}

async function resumedBatch(options: BatchOptions, now: () => Date): Promise<BatchFile> {
  if (options.plans?.length) throw new UsageError('--resume takes the batch folder only; its plans are in its batch.json');
  const out = resolve(options.cwd, options.resume!);
  const file = await readBatchFile(out);
  const concurrency = checkConcurrency(options.concurrency ?? file.options.concurrency);
  const { isolate, repo } = await chooseIsolation(file.cwd, concurrency, file.options.isolate);
  return {
    ...file,
    out,
    updatedAt: now().toISOString(),
    options: { ...file.options, concurrency, isolate, planTimeoutMs: options.planTimeoutMs ?? file.options.planTimeoutMs },
    repo,
    status: 'running',
  };
}

export async function runBatch(options: BatchOptions, deps: BatchDeps = {}): Promise<BatchSummary> {
  const now = deps.now ?? (() => new Date());
  const emit = deps.onEvent ?? (() => undefined);
  const signal = deps.signal ?? new AbortController().signal;
  const resumed = options.resume !== undefined;
  // Loaded first: a broken install must not leave an empty batch folder behind.
  const runPlan = deps.runPlan ?? (await loadRunPlan());
  const file = resumed ? await resumedBatch(options, now) : await newBatch(options, now);
  const { out } = file;
  if (deps.checkpoints && !file.repo) throw new UsageError('--checkpoint commits on each plan\'s branch, and this batch runs its plans in one shared folder (--isolate none)');
  if (deps.deliver && !file.repo) throw new UsageError('--pr needs each plan on its own branch, and this batch runs its plans in one shared folder (--isolate none)');
  await writeBatchFile(out, file);

  const notes = new Map<string, string[]>();
  const toRun: { plan: BatchPlan; firstAttempt: number }[] = [];
  for (const plan of file.plans) {
    if (resumed) {
      const d = await prepareResume(out, plan);
      if (d.notes.length) notes.set(plan.id, d.notes);
      for (const message of d.notes) emit({ type: 'warning', plan: plan.id, message });
      if (!d.run) continue;
    }
    toRun.push({ plan, firstAttempt: await nextAttempt(out, plan.id) });
  }

  emit({
    type: 'batch-start',
    batchId: file.batchId,
    out,
    plans: file.plans.map((p) => p.id),
    toRun: toRun.map((t) => t.plan.id),
    concurrency: file.options.concurrency,
    isolate: file.options.isolate,
    resumed,
    config: deps.extras?.project?.file ?? null,
  });

  const sharedLimits = new SharedLimits();
  const isolationOf = (plan: BatchPlan): Isolation | null =>
    file.repo ? { repo: file.repo, worktree: join(out, WORKTREES_DIR, plan.id), branch: branchName(file.batchId, plan.id), base: file.base ?? 'HEAD' } : null;
  await runPool(
    toRun,
    file.options.concurrency,
    async ({ plan, firstAttempt }) => {
      try {
        await runPlanWithRetry({
          out,
          plan,
          firstAttempt,
          cwd: file.cwd,
          exec: { ...file.options.exec, cwd: file.options.exec.cwd ? resolve(file.cwd, file.options.exec.cwd) : file.cwd },
          runPlan,
          sharedLimits,
          wantOutput: deps.wantOutput ?? false,
          batchSignal: signal,
          planTimeoutMs: file.options.planTimeoutMs ?? undefined,
          stragglerGraceMs: deps.stragglerGraceMs ?? STRAGGLER_GRACE_MS,
          isolation: isolationOf(plan),
          ...(deps.deliver ? { deliver: deps.deliver } : {}),
          ...(deps.checkpoints ? { checkpoints: deps.checkpoints } : {}),
          ...(deps.extras ? { extras: deps.extras } : {}),
          emit,
          now,
        });
      } catch (error) {
        // Writing a plan's files failed (disk full, permissions): the others carry on.
        emit({ type: 'warning', plan: plan.id, message: `could not write the result of ${plan.id}: ${(error as Error).message}` });
      }
    },
    signal,
  );

  return finishBatch({ file, notes, interrupted: signal.aborted, emit, now, ...(deps.writeReport ? { writeReport: deps.writeReport } : {}) });
}
