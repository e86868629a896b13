// The coordinator's side of a queued batch's files (docs/queue.md): the same files as a local
// batch, written here as workers' reports arrive. For each plan: a `.md.partial` when an attempt
// starts on some worker, the worker's result text (sentinel included) when it ends, then the
// rename to `<id>.md`, or the move into attempts/ before a retry, or an error stub. Every step is
// safe to repeat, so a coordinator that was killed and resumed picks up where the files stand.
import { readdir, readFile, rename } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { RUN_FILES } from '../contract.js';
import {
  ATTEMPTS_DIR,
  moveAside,
  parseResultFile,
  partialPath,
  renderErrorStub,
  renderHeader,
  resultPath,
  RETRYABLE,
  RUNS_DIR,
  runDirName,
  type AttemptOutcome,
  type BatchEvent,
  type BatchPlan,
  withDelivery,
  type ResultFacts,
} from '../batch/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { pathExists } from '../util/path-exists.js';
import { workerName, type AttemptReport, type JobProgress } from './job.js';

interface PlanState {
  plan: BatchPlan;
  /** The plan has its one `.md`. */
  final: boolean;
  /** The plan will not run (the batch was cancelled before it started). */
  notRun: boolean;
  /** Attempts whose files are written (moved into attempts/ or final). */
  handled: Set<number>;
  /** The attempt whose `.md.partial` is open, and who runs it. */
  started: number;
  startedBy: string | null;
  iteration: number;
  previous: string[];
}

export interface CollectorDeps {
  out: string;
  batchId: string;
  /** The attempt a plan's current job starts at: reports and progress of older attempts (before a resume re-queued the plan) are not this job's. */
  firstAttempt: (plan: string) => number;
  emit: (e: BatchEvent) => void;
  now: () => Date;
  /** --pr (docs/deliver.md): delivers a plan's branch once its last attempt is reported; null when nothing was to be done. */
  deliver?: (r: AttemptReport) => Promise<Delivered | null>;
}

type Delivered = { prUrl: string | null; note: string; failed: boolean };

export class Collector {
  private readonly states = new Map<string, PlanState>();

  constructor(
    private readonly deps: CollectorDeps,
    plans: BatchPlan[],
  ) {
    for (const plan of plans) this.states.set(plan.id, { plan, final: false, notRun: false, handled: new Set(), started: 0, startedBy: null, iteration: 0, previous: [] });
  }

  /** Plans still waiting for their `.md`. */
  pending(): BatchPlan[] {
    return [...this.states.values()].filter((s) => !s.final && !s.notRun).map((s) => s.plan);
  }

  isFinal(plan: string): boolean {
    const s = this.states.get(plan);
    return s === undefined || s.final;
  }

  /** One past every attempt of `plan` this batch folder knows of (started, or with its files written). */
  nextAttempt(plan: string): number {
    const s = this.states.get(plan);
    if (!s) return 1;
    return Math.max(s.started, this.deps.firstAttempt(plan) - 1, ...s.handled) + 1;
  }

  /**
   * The batch was cancelled before the plan's (next) attempt started. A plan that never ran has no
   * `.md`; one with earlier attempts ends `interrupted` (a stub naming them), as a local batch's
   * would, so the index counts its attempts and `--resume` runs it again.
   */
  async markNotRun(plan: string): Promise<void> {
    const s = this.states.get(plan);
    if (!s || s.final || s.notRun) return;
    const { out } = this.deps;
    const partial = partialPath(out, plan);
    if (s.started > 0 && !s.handled.has(s.started) && (await pathExists(partial))) {
      s.previous.push(await moveAside(out, partial, `${plan}.attempt-${s.started}.md`));
      s.handled.add(s.started);
    }
    if (s.handled.size === 0) {
      s.notRun = true;
      return;
    }
    const attempts = Math.max(...s.handled);
    await this.endWithStub(plan, s, 'interrupted', `the batch was cancelled before attempt ${attempts + 1} started`, attempts);
  }

  /** Ends a plan that has no final report with an error stub naming its earlier attempts. */
  private async endWithStub(plan: string, s: PlanState, outcome: AttemptOutcome, reason: string, attempts: number): Promise<void> {
    const { out, emit, now } = this.deps;
    const facts: ResultFacts = {
      outcome,
      reason,
      exitCode: null,
      attempts,
      iterations: null,
      costUsd: null,
      prUrl: null,
      branch: null,
      commit: null,
      worktree: null,
      runDir: 'none',
      previous: s.previous.map((p) => relative(out, p)),
      endedAt: now().toISOString(),
    };
    const final = resultPath(out, plan);
    await writeFileAtomic(final, renderErrorStub(plan, facts));
    s.final = true;
    emit({ type: 'plan-end', plan, attempt: attempts, outcome, reason, exitCode: null, verdict: 'error', resultFile: final, iterations: null, costUsd: null });
  }

  /**
   * Reads what an earlier coordinator left: a final `.md` ends the plan, except an interrupted
   * one, which is moved aside so the plan runs again (as a local resume does); attempts/ files
   * are attempts already handled. Returns the plans to run again and notes for the index.
   */
  async restore(): Promise<{ rerun: string[]; notes: Map<string, string[]> }> {
    const { out } = this.deps;
    const rerun: string[] = [];
    const notes = new Map<string, string[]>();
    let asideNames: string[] = [];
    try {
      asideNames = await readdir(join(out, ATTEMPTS_DIR));
    } catch {
      // none yet
    }
    for (const s of this.states.values()) {
      const id = s.plan.id;
      for (const name of asideNames) {
        const m = new RegExp(`^(?:\\d+-)?${id.replace(/[.]/g, '\\.')}\\.attempt-(\\d+)\\.md$`).exec(name);
        if (m) {
          s.handled.add(Number(m[1]));
          s.previous.push(join(out, ATTEMPTS_DIR, name));
        }
      }
      const md = resultPath(out, id);
      if (await pathExists(md)) {
        const row = parseResultFile(id, `${id}.md`, await readFile(md, 'utf8'));
        if (row.outcome === 'interrupted') {
          const moved = await moveAside(out, md, `${id}.interrupted.md`);
          notes.set(id, [`resume: ${id} was interrupted; its result moved to ${relative(out, moved)} and the plan was queued again`]);
          rerun.push(id);
        } else {
          s.final = true;
        }
        continue;
      }
      try {
        const head = /^- Attempt: (\d+)$/m.exec(await readFile(partialPath(out, id), 'utf8'));
        if (head) s.started = Number(head[1]);
      } catch {
        // no attempt under way
      }
    }
    return { rerun, notes };
  }

  /** A worker reports progress on a plan: a new attempt opens its partial file; a new iteration is shown. */
  async progress(plan: string, p: JobProgress): Promise<void> {
    const s = this.states.get(plan);
    if (!s || s.final || p.attempt < s.started || p.attempt < this.deps.firstAttempt(plan) || s.handled.has(p.attempt)) return;
    const { out, emit } = this.deps;
    const by = workerName(p.worker);
    if (p.attempt > s.started || s.startedBy !== p.worker.id) {
      await this.setAsideCrashed(s, p.attempt);
      const rel = (p2: string) => relative(out, p2);
      await writeFileAtomic(
        partialPath(out, plan),
        renderHeader({
          plan,
          planPath: s.plan.path,
          attempt: p.attempt,
          startedAt: p.startedAt,
          runDir: `${p.worker.host}:${p.runDir}`,
          branch: p.branch,
          worktree: `${p.worker.host}:${p.checkout}`,
        }) + `- ${p.startedAt.slice(11, 19)} running on worker ${by}${s.previous.length ? `; earlier attempts: ${s.previous.map(rel).join(', ')}` : ''}\n`,
      );
      s.started = p.attempt;
      s.startedBy = p.worker.id;
      s.iteration = 0;
      emit({ type: 'plan-start', plan, attempt: p.attempt, runDir: `${p.worker.host}:${p.runDir}`, cwd: `${p.worker.host}:${p.checkout}`, branch: p.branch, worktree: `${p.worker.host}:${p.checkout}`, worker: by });
    }
    if (p.iteration > s.iteration) {
      s.iteration = p.iteration;
      emit({ type: 'run', plan, attempt: p.attempt, event: { type: 'iteration-start', iteration: p.iteration, maxIterations: p.maxIterations, fresh: p.fresh, prompt: p.prompt } });
    }
  }

  /**
   * A later attempt of the plan has shown up (its progress, or its report when it ended within one
   * look at the queue) while the attempt before never reported: its worker died or lost its job
   * lock, and BullMQ's stalled-job check gave the job to another worker. That counts as the plan's
   * retry: the earlier attempt's partial file goes to attempts/.
   */
  private async setAsideCrashed(s: PlanState, later: number): Promise<void> {
    const { out, emit } = this.deps;
    const plan = s.plan.id;
    if (s.started === 0 || later <= s.started || s.handled.has(s.started) || !(await pathExists(partialPath(out, plan)))) return;
    const movedTo = await moveAside(out, partialPath(out, plan), `${plan}.attempt-${s.started}.md`);
    s.previous.push(movedTo);
    s.handled.add(s.started);
    emit({ type: 'plan-retry', plan, attempt: later, outcome: 'crashed', reason: `attempt ${s.started} on ${s.startedBy ?? 'a worker'} stopped without a result (the worker died or lost its job lock)`, movedTo });
  }

  /** A worker's report of one attempt. Returns false when it was not used (already handled, or a straggler). */
  async report(r: AttemptReport, latestAttempt: number): Promise<boolean> {
    const s = this.states.get(r.plan);
    if (!s || s.final || r.attempt < this.deps.firstAttempt(r.plan)) return false;
    const { out, emit } = this.deps;
    const stub = r.final && (RETRYABLE.has(r.outcome) || r.outcome === 'invalid');
    if (r.final && r.attempt < latestAttempt) {
      // Its job lock expired and another worker took the plan up: that run's result is the one.
      if (!s.handled.has(r.attempt)) emit({ type: 'warning', plan: r.plan, message: `attempt ${r.attempt} on ${workerName(r.worker)} ended after the plan was taken up again by another worker; its result is kept only on that worker` });
      s.handled.add(r.attempt);
      return false;
    }
    if (s.handled.has(r.attempt)) {
      // Handled already, except for one case: a coordinator stopped between moving a final failed
      // attempt into attempts/ and writing the error stub in its place. Write the stub now.
      if (!stub || (await pathExists(resultPath(out, r.plan)))) return false;
      return this.finish(s, r, true, this.deps.deliver ? await this.deps.deliver(r) : null);
    }
    await this.setAsideCrashed(s, r.attempt);
    await this.writeRunFiles(r);
    const partial = partialPath(out, r.plan);
    // Before the result is written: a coordinator stopped while it delivers reads the report again and delivers again (an update).
    const delivered = r.final && this.deps.deliver ? await this.deps.deliver(r) : null;
    await writeFileAtomic(partial, delivered ? withDelivery(r.text, delivered.prUrl, delivered) : r.text);
    if (!r.final) {
      const movedTo = await moveAside(out, partial, `${r.plan}.attempt-${r.attempt}.md`);
      s.previous.push(movedTo);
      s.handled.add(r.attempt);
      s.started = r.attempt;
      emit({ type: 'plan-retry', plan: r.plan, attempt: r.attempt + 1, outcome: r.outcome, reason: r.reason, movedTo });
      return true;
    }
    if (stub) s.previous.push(await moveAside(out, partial, `${r.plan}.attempt-${r.attempt}.md`));
    else await rename(partial, resultPath(out, r.plan));
    s.handled.add(r.attempt);
    return this.finish(s, r, stub, delivered);
  }

  /** The plan's one `.md` is in place (or, for a stub, written now): the plan is done. */
  private async finish(s: PlanState, r: AttemptReport, stub: boolean, delivered: Delivered | null = null): Promise<boolean> {
    const { out, emit } = this.deps;
    const final = resultPath(out, r.plan);
    if (stub) {
      const facts = this.facts(s, r);
      const withPr = delivered ? { ...facts, prUrl: delivered.prUrl ?? facts.prUrl, delivery: { note: delivered.note, failed: delivered.failed } } : facts;
      await writeFileAtomic(final, renderErrorStub(r.plan, withPr));
    }
    s.final = true;
    emit({ type: 'plan-end', plan: r.plan, attempt: r.attempt, outcome: r.outcome, reason: r.reason, exitCode: r.exitCode, verdict: stub ? 'error' : r.verdict, resultFile: final, iterations: r.iterations, costUsd: r.costUsd });
    return true;
  }

  /** The job failed on the queue without a final report (it stalled twice, or the worker hit a bug): an error stub. */
  async jobFailed(plan: string, why: string): Promise<void> {
    const s = this.states.get(plan);
    if (!s || s.final) return;
    const { out } = this.deps;
    const partial = partialPath(out, plan);
    if (await pathExists(partial)) s.previous.push(await moveAside(out, partial, `${plan}.attempt-${Math.max(1, s.started)}.md`));
    await this.endWithStub(plan, s, 'crashed', `the job failed on the queue: ${why}`, Math.max(1, s.started));
  }

  private facts(s: PlanState, r: AttemptReport): ResultFacts {
    const { out } = this.deps;
    return {
      outcome: r.outcome,
      reason: r.reason,
      exitCode: r.exitCode,
      attempts: r.attempt,
      iterations: r.iterations,
      costUsd: r.costUsd,
      prUrl: r.result?.prUrl ?? null,
      commit: r.pushed,
      branch: r.branch,
      worktree: `${r.worker.host}:${r.checkout}`,
      runDir: `${r.worker.host}:${r.runDir}`,
      previous: s.previous.map((p) => relative(out, p)),
      endedAt: r.endedAt,
    };
  }

  /** result.json and findings.jsonl of the attempt under `<out>/runs/`, so report.md covers queued runs too. */
  private async writeRunFiles(r: AttemptReport): Promise<void> {
    const dir = join(this.deps.out, RUNS_DIR, runDirName(r.plan, r.attempt));
    if (r.result) await writeFileAtomic(join(dir, RUN_FILES.result), `${JSON.stringify({ ...r.result, runDir: `${r.worker.host}:${r.runDir}` }, null, 2)}\n`);
    await writeFileAtomic(join(dir, RUN_FILES.findings), r.findings);
  }
}
