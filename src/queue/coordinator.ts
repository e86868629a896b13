// `ralph batch --queue` as a function (docs/queue.md): checks everything before it enqueues (the
// queue URL, the repository's remote and commit, the plans, Redis), puts one job per plan on the
// shared BullMQ queue, and collects the workers' reports into the same files a local batch writes.
// It never prints and never installs signal handlers: the caller passes an AbortSignal (Ctrl+C
// cancels the batch's waiting jobs and asks the running ones to stop) and subscribes to events.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QUEUE } from '../contract.js';
import { UsageError } from '../errors.js';
import {
  batchIdAt,
  chooseBatchOut,
  finishBatch,
  readBatchFile,
  resolvePlans,
  newBatchFile,
  writeBatchFile,
  type BatchEvent,
  type BatchFile,
  type BatchPlan,
  type BatchSummary,
  type SharedExecOptions,
  branchName,
  RUNS_DIR,
  runDirName,
} from '../batch/index.js';
import { oneLine } from '../batch/one-line.js';
import type { Delivery, PlanToDeliver } from '../deliver/index.js';
import { Collector } from './collect.js';
import { batchKey, checkJobExec, checkReport, checkRunFacts, isCommit, jobId, openJob, openProgress, sealJob, type AttemptReport, type JobProgress, type QueueJob, type QueueJobData } from './job.js';
import { openRedis, probeRedis } from './redis-connection.js';
import { readQueueSecret, unsealText } from './seal.js';
import { parseQueueUrl, type QueueUrl } from './redis-url.js';
import { checkRepoRemote, planPathsInCommit } from './repo-remote.js';
import { checkCommittedInputs, type AgentConfig } from './committed-inputs.js';

export interface QueuedBatchOptions {
  cwd: string;
  /** The --queue URL; on --resume, taken from batch.json when not given. */
  queue?: string;
  plans?: string[];
  resume?: string;
  out?: string;
  planTimeoutMs?: number;
  exec?: SharedExecOptions;
  /** The coordinator's config file and its agents: the files they name must be committed as they are. */
  agentConfig?: AgentConfig;
  /** Where the queue secret is read from (RALPH_QUEUE_SECRET, RALPH_QUEUE_SECRET_FILE); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** --checkpoint (docs/deliver.md#checkpoints): travels with each job; on --resume, as given again. */
  checkpoints?: { squash: boolean };
}

export interface QueuedBatchDeps {
  /**
   * --pr (docs/deliver.md): opens or updates a plan's pull request from its pushed branch, here on
   * the coordinator, which holds the token: it never goes through Redis to a worker.
   */
  deliver?: (o: PlanToDeliver) => Promise<Delivery>;
  signal?: AbortSignal;
  onEvent?: (e: BatchEvent) => void;
  now?: () => Date;
  pollMs?: number;
}

/** What batch.json holds beyond a local batch's fields. */
export interface QueueInfo {
  /** The URL with its password masked: --resume asks for --queue again when it had one. */
  url: string;
  name: string;
  remote: string;
  commit: string;
  repo: string;
  /** Plan id → the plan's path in the repository. */
  planPaths: Record<string, string>;
  /** Plan id → the attempt its current job starts at. */
  firstAttempts: Record<string, number>;
  exec: SharedExecOptions;
  /** --checkpoint, as the jobs carry it; absent without. */
  checkpoints?: { squash: boolean };
}

type QueuedBatchFile = BatchFile & { queue: QueueInfo };

// The random tail keeps ids apart when two machines start batches in the same second: the id
// names the plans' branches on the shared remote and the batch's keys in the shared Redis.
function queuedBatchId(at: Date): string {
  return `${batchIdAt(at)}-${randomBytes(3).toString('hex')}`;
}

function insideRepo(top: string, path: string, what: string): string {
  const rel = relative(top, path);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new UsageError(`${what} ${path} is outside the repository ${top}; a worker only has its checkout`);
  return rel.split(sep).join('/');
}

/**
 * Exec options as a worker applies them: paths relative to the checkout, and no agent command (a
 * worker never runs a command from Redis: it takes the agent from its own flags or the repository).
 */
function execForWorkers(exec: SharedExecOptions, cwd: string, top: string): SharedExecOptions {
  const { cwd: execCwd, promptsDir, command, ...rest } = exec;
  if (command?.length) {
    throw new UsageError(
      'a queued batch sends no agent command to the workers: each worker runs the agent named by its own flags or by the repository (ralph.config.yaml, the plan\'s command:)',
      'commit the agent in ralph.config.yaml (agent:/agents:) and push, or start the workers with it: ralph worker --queue URL -- <command>',
    );
  }
  const out: SharedExecOptions = { ...rest };
  const rel = insideRepo(top, resolve(cwd, execCwd ?? cwd), 'the working directory');
  if (rel !== '') out.cwd = rel;
  if (promptsDir !== undefined) out.promptsDir = insideRepo(top, resolve(cwd, promptsDir), 'the prompts folder') || '.';
  const checked = checkJobExec(out);
  if (checked.problem !== null) throw new UsageError(`cannot queue these options: ${checked.problem}`);
  return out;
}

async function newQueuedBatch(options: QueuedBatchOptions, q: QueueUrl, now: () => Date): Promise<QueuedBatchFile> {
  const plans = await resolvePlans(options.plans ?? [], options.cwd);
  const remote = await checkRepoRemote(options.cwd);
  const planPaths = await planPathsInCommit(remote, plans);
  await checkCommittedInputs(remote, plans, options.exec ?? {}, options.cwd, options.agentConfig);
  const exec = execForWorkers(options.exec ?? {}, options.cwd, remote.top);
  await probeRedis(q);
  const at = now();
  const { out, batchId } = await chooseBatchOut(options.cwd, options.out, queuedBatchId(at));
  const batchOptions = { concurrency: 0, isolate: 'worktree' as const, planTimeoutMs: options.planTimeoutMs ?? null, exec: options.exec ?? {} };
  return {
    ...(await newBatchFile({ cwd: options.cwd, out, batchId, at, options: batchOptions, repo: remote.top, plans })),
    queue: {
      url: q.display,
      name: QUEUE.name,
      remote: remote.url,
      commit: remote.commit,
      repo: remote.top,
      planPaths: Object.fromEntries(planPaths),
      firstAttempts: Object.fromEntries(plans.map((p) => [p.id, 1])),
      exec,
      ...(options.checkpoints ? { checkpoints: options.checkpoints } : {}),
    },
  };
}

async function resumedQueuedBatch(options: QueuedBatchOptions, now: () => Date): Promise<{ file: QueuedBatchFile; q: QueueUrl }> {
  if (options.plans?.length) throw new UsageError('--resume takes the batch folder only; its plans are in its batch.json');
  const out = resolve(options.cwd, options.resume!);
  const file = (await readBatchFile(out)) as QueuedBatchFile;
  if (!file.queue) throw new UsageError(`${out} holds a local batch, not a queued one`, `resume it without --queue: ralph batch --resume ${out}`);
  const given = options.queue ?? file.queue.url;
  if (options.queue === undefined && file.queue.url.includes(':***@')) {
    throw new UsageError(`the queue URL of ${out} had a password, which batch.json does not keep`, 'give it again: ralph batch --resume <out> --queue redis://…');
  }
  const q = parseQueueUrl(given);
  await probeRedis(q);
  // Checkpoints follow this run's --checkpoint and config, as a resumed local batch's do.
  const queue: QueueInfo = { ...file.queue };
  delete queue.checkpoints;
  return {
    file: {
      ...file,
      out,
      updatedAt: now().toISOString(),
      status: 'running',
      options: { ...file.options, planTimeoutMs: options.planTimeoutMs ?? file.options.planTimeoutMs },
      queue: { ...queue, ...(options.checkpoints ? { checkpoints: options.checkpoints } : {}) },
    },
    q,
  };
}

function jobData(file: QueuedBatchFile, plan: BatchPlan): QueueJobData {
  return {
    batchId: file.batchId,
    plan: plan.id,
    planPath: file.queue.planPaths[plan.id]!,
    remote: file.queue.remote,
    commit: file.queue.commit,
    exec: file.queue.exec,
    planTimeoutMs: file.options.planTimeoutMs,
    firstAttempt: file.queue.firstAttempts[plan.id] ?? 1,
    coordinator: hostname(),
    ...(file.queue.checkpoints ? { checkpoints: file.queue.checkpoints } : {}),
  };
}

const JOB_OPTIONS = {
  attempts: QUEUE.attempts,
  removeOnComplete: { age: QUEUE.keepSeconds },
  removeOnFail: { age: QUEUE.keepSeconds },
};

/**
 * The pause between two looks at the queue: `pollMs`, cut short when a worker announces a report
 * on the batch's channel. Pub/sub loses what is published while the coordinator is disconnected,
 * so the poll stays; a lost announcement only delays a result until the next look.
 */
class Pause {
  private news = false;
  private wake: (() => void) | undefined;

  announce(): void {
    this.news = true;
    this.wake?.();
  }

  wait(ms: number, signal: AbortSignal): Promise<void> {
    if (this.news || signal.aborted) {
      this.news = false;
      return Promise.resolve();
    }
    return new Promise((r) => {
      const done = () => {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        this.wake = undefined;
        this.news = false;
        r();
      };
      const t = setTimeout(done, ms);
      this.wake = done;
      signal.addEventListener('abort', done, { once: true });
    });
  }
}

export async function runQueuedBatch(options: QueuedBatchOptions, deps: QueuedBatchDeps = {}): Promise<BatchSummary> {
  const now = deps.now ?? (() => new Date());
  const emit = deps.onEvent ?? (() => undefined);
  const signal = deps.signal ?? new AbortController().signal;
  const pollMs = deps.pollMs ?? 500;
  const resumed = options.resume !== undefined;
  // A new batch's URL is checked before anything else (docs/queue.md), the secret next.
  if (!resumed && options.queue === undefined) throw new UsageError('--queue needs a Redis URL');
  const newUrl = resumed ? null : parseQueueUrl(options.queue!);
  const secret = readQueueSecret(options.env ?? process.env);
  const { file, q } = newUrl === null ? await resumedQueuedBatch(options, now) : { file: await newQueuedBatch(options, newUrl, now), q: newUrl };
  const { out, batchId } = file;

  let lastRedisError = '';
  const redis: Redis = openRedis(q, (m) => {
    if (m === lastRedisError) return;
    lastRedisError = m;
    emit({ type: 'warning', message: `redis: ${m}; waiting for it to come back` });
  });
  redis.on('ready', () => (lastRedisError = ''));
  const queue = new Queue<QueueJob>(QUEUE.name, { connection: redis });
  queue.on('error', () => undefined);
  // A connection of its own: one that subscribes can send nothing else.
  const subscriber = redis.duplicate();
  subscriber.on('error', () => undefined);
  const pause = new Pause();
  subscriber.on('message', () => pause.announce());
  try {
    await subscriber.subscribe(batchKey(batchId, 'news'));
    const byId = new Map(file.plans.map((p) => [p.id, p]));
    const deliver = deps.deliver;
    // As in a local batch, a plan's branch is delivered after its last attempt, unless the batch was interrupted.
    const deliverReport = async (r: AttemptReport): Promise<Delivery | null> => {
      if (!deliver || signal.aborted) return null;
      const facts = checkRunFacts(r.facts);
      const d = await deliver({
        planId: r.plan,
        planPath: byId.get(r.plan)!.path,
        runDir: join(out, RUNS_DIR, runDirName(r.plan, r.attempt)),
        shownRunDir: `${r.worker.host}:${r.runDir}`,
        outcome: r.outcome,
        reason: typeof r.reason === 'string' ? r.reason : '',
        repo: file.queue.repo,
        // The coordinator's own names, not the report's: only the commit comes from the worker, checked as one.
        branch: branchName(batchId, r.plan),
        commit: isCommit(r.pushed) ? r.pushed : null,
        fetchFrom: file.queue.remote,
        ...(facts ? { facts } : {}),
      });
      emit(d.failed ? { type: 'warning', plan: r.plan, message: d.note } : { type: 'delivered', plan: r.plan, prUrl: d.prUrl, note: d.note });
      return d;
    };
    const collector = new Collector({ out, batchId, emit, now, firstAttempt: (plan) => file.queue.firstAttempts[plan] ?? 1, ...(deliver ? { deliver: deliverReport } : {}) }, file.plans);
    const notes = new Map<string, string[]>();
    const attemptsKey = batchKey(batchId, 'attempts');
    const reportsKey = batchKey(batchId, 'reports');
    const cancelKey = batchKey(batchId, 'cancel');
    const warningsKey = batchKey(batchId, 'warnings');
    // Present while Redis holds the batch's data: gone means Redis lost it (restarted without
    // persistence, or flushed), which the coordinator names and repairs rather than wait for ever.
    const aliveKey = batchKey(batchId, 'alive');
    const markAlive = () => redis.set(aliveKey, now().toISOString(), 'EX', QUEUE.keepSeconds);

    const enqueue = async (plans: BatchPlan[], replace: boolean) => {
      for (const plan of plans) {
        const id = jobId(batchId, plan.id);
        if (replace) {
          // A fresh number, past every attempt Redis or this batch folder knows of.
          const counted = Number((await redis.hget(attemptsKey, plan.id)) ?? 0) + 1;
          file.queue.firstAttempts[plan.id] = Math.max(counted, collector.nextAttempt(plan.id), file.queue.firstAttempts[plan.id] ?? 1);
          await queue.remove(id).catch(() => undefined);
        }
      }
      await writeBatchFile(out, file);
      await queue.addBulk(plans.map((plan) => ({ name: plan.id, data: sealJob(secret, jobData(file, plan)), opts: { ...JOB_OPTIONS, jobId: jobId(batchId, plan.id) } })));
    };

    /** Another coordinator's batch with the same plans of the same repository, still waiting or running, is named: both would run them. */
    const warnIfQueuedElsewhere = async () => {
      const mine = new Set(Object.values(file.queue.planPaths));
      const others = new Map<string, Set<string>>();
      for (const job of await queue.getJobs(['waiting', 'active', 'delayed', 'prioritized'])) {
        if (!job || job.data?.batchId === batchId) continue;
        const opened = openJob(secret, job.data);
        if (opened.kind !== 'ok' || opened.data.remote !== file.queue.remote || !mine.has(opened.data.planPath)) continue;
        const set = others.get(opened.data.batchId) ?? new Set<string>();
        set.add(opened.data.planPath);
        others.set(opened.data.batchId, set);
      }
      for (const [other, paths] of others) {
        emit({ type: 'warning', message: `batch ${other} has ${paths.size} of these plans queued or running too (${[...paths].sort().slice(0, 3).join(', ')}${paths.size > 3 ? ', …' : ''}): both batches run them; stop one coordinator with Ctrl+C if that was not meant` });
      }
    };

    /** The batch's reports in Redis that are sealed with the secret and well-formed; the others are named once and ignored. */
    const forged = new Set<string>();
    const openReports = (fields: string[], texts: (string | null)[]): AttemptReport[] =>
      fields.flatMap((field, i) => {
        if (texts[i] === null || texts[i] === undefined) return [];
        const r = checkReport(unsealText(secret, 'report', texts[i]!), batchId, field);
        if (r === null && !forged.has(field)) {
          forged.add(field);
          emit({ type: 'warning', message: `ignored the report "${oneLine(field, 80)}" in Redis: it is not sealed with this batch's queue secret, or not well-formed` });
        }
        return r === null ? [] : [r];
      });

    let toRun = file.plans.map((p) => p.id);
    const again: BatchPlan[] = [];
    if (resumed) {
      await redis.del(cancelKey);
      const restored = await collector.restore();
      for (const [id, n] of restored.notes) notes.set(id, n);
      for (const [id, n] of restored.notes) for (const message of n) emit({ type: 'warning', plan: id, message });
      // Plans to queue again: those whose result said interrupted, and those whose job is gone
      // (cancelled before it started, or finished without a result).
      const all = await redis.hgetall(reportsKey);
      const reports = openReports(Object.keys(all), Object.values(all));
      for (const plan of collector.pending()) {
        if (restored.rerun.includes(plan.id)) {
          again.push(plan);
          continue;
        }
        const state = await queue.getJobState(jobId(batchId, plan.id));
        const first = file.queue.firstAttempts[plan.id] ?? 1;
        const hasFinal = reports.some((r) => r.plan === plan.id && r.final && r.attempt >= first);
        if (!hasFinal && (state === 'unknown' || state === 'completed')) again.push(plan);
      }
      toRun = collector.pending().map((p) => p.id);
      if (again.length) await enqueue(again, true);
      else await writeBatchFile(out, file);
    } else {
      await warnIfQueuedElsewhere();
      await enqueue(file.plans, false);
    }
    await markAlive();
    emit({ type: 'batch-start', batchId, out, plans: file.plans.map((p) => p.id), toRun, concurrency: 0, isolate: 'worktree', resumed, queue: q.display });

    let cancelled = false;
    let warningsSeen = 0;
    // Report fields already handed to the collector (it would ignore them again anyway).
    const seenReports = new Set<string>();
    let tick = 0;
    while (collector.pending().length > 0) {
      if (signal.aborted && !cancelled) {
        cancelled = true;
        await redis.set(cancelKey, String(Date.now()), 'EX', QUEUE.keepSeconds);
        for (const plan of collector.pending()) {
          const id = jobId(batchId, plan.id);
          const state = await queue.getJobState(id);
          if (state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'unknown') {
            await queue.remove(id).catch(() => undefined);
            await collector.markNotRun(plan.id);
          }
        }
        continue;
      }
      // Read in this order: job states, then progress, then reports. A worker writes its report
      // before its job changes state and before the next attempt can start, so a job seen failed,
      // or a new attempt seen starting, with no report read after it really had none.
      const pending = collector.pending();
      const states = new Map<string, string>();
      if (tick % 4 === 0 || cancelled) {
        if (!cancelled && (await redis.exists(aliveKey)) === 0) {
          const plans = collector.pending();
          emit({
            type: 'warning',
            message: `error: Redis lost this batch's data (restarted without persistence, or flushed): its jobs, attempts and reports are gone; queuing the ${plans.length} unfinished plan(s) again with fresh attempt numbers (attempts still running on workers lost their jobs and publish nothing)`,
          });
          await markAlive();
          warningsSeen = 0;
          await enqueue(plans, true);
          continue;
        }
        for (const plan of pending) states.set(plan.id, await queue.getJobState(jobId(batchId, plan.id)));
      }
      tick++;
      const progress: [string, JobProgress][] = [];
      for (const job of await queue.getActive()) {
        const data = job.data as Partial<QueueJob> | undefined;
        if (data?.batchId !== batchId || typeof data.plan !== 'string' || !byId.has(data.plan)) continue;
        const p = openProgress(secret, job.progress, batchId, data.plan);
        if (p !== null) progress.push([data.plan, p]);
      }
      const fresh = (await redis.hkeys(reportsKey)).filter((f) => !seenReports.has(f));
      if (fresh.length) {
        const reports = openReports(fresh, await redis.hmget(reportsKey, ...fresh)).sort((a, b) => a.attempt - b.attempt);
        const latest = await redis.hgetall(attemptsKey);
        for (const r of reports) if (byId.has(r.plan)) await collector.report(r, Number(latest[r.plan] ?? r.attempt));
        // Only reports read as sealed are done with: a worker's real report may yet replace a forged one.
        for (const r of reports) seenReports.add(`${r.plan}#${r.attempt}`);
      }
      for (const [plan, p] of progress) await collector.progress(plan, p);
      const warnings = await redis.lrange(warningsKey, warningsSeen, -1);
      warningsSeen += warnings.length;
      for (const w of warnings) {
        const opened = unsealText(secret, 'warning', w) as { plan?: unknown; message?: unknown } | null;
        if (opened === null || typeof opened.message !== 'string') continue;
        emit({ type: 'warning', plan: typeof opened.plan === 'string' && byId.has(opened.plan) ? opened.plan : undefined, message: oneLine(opened.message, 500) });
      }
      for (const [plan, state] of states) {
        if (collector.isFinal(plan)) continue;
        if (state === 'failed') {
          const job = await queue.getJob(jobId(batchId, plan));
          await collector.jobFailed(plan, job?.failedReason || 'no reason given');
        } else if (state === 'completed' || state === 'unknown') {
          if (cancelled) await collector.markNotRun(plan);
          else {
            // Its report, read after its state, is missing or not sealed with the batch's secret.
            const why = state === 'unknown' ? 'its job was no longer on the queue' : 'its job finished without a report this coordinator can read (lost, or not sealed with the batch\'s secret)';
            emit({ type: 'warning', plan, message: `${why}; queued again` });
            await enqueue([byId.get(plan)!], true);
          }
        }
      }
      if (collector.pending().length > 0) await pause.wait(pollMs, cancelled ? new AbortController().signal : signal);
    }

    return await finishBatch({ file, notes, interrupted: cancelled, emit, now });
  } finally {
    await queue.close().catch(() => undefined);
    await subscriber.quit().catch(() => subscriber.disconnect());
    await redis.quit().catch(() => redis.disconnect());
  }
}
