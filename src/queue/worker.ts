// `ralph worker` as a function (docs/queue.md): a BullMQ worker on the shared queue that runs each
// job's plan with ralph's own loop in a checkout of the job's commit, and reports back. Attempt
// numbers are ralph's own (a counter per plan in Redis, counted when a run starts), so a job a
// worker hands back without running it never uses up the plan's retry, while a job taken up
// after its worker died does.
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { QUEUE } from '../contract.js';
import { branchName, RETRYABLE, runDirName, type RunPlanFn } from '../batch/index.js';
import type { RunEvent } from '../loop/index.js';
import { SharedLimits } from '../loop/limit-wait.js';
import { commitPlanBranch } from '../batch/commit-plan-branch.js';
import { Checkouts, CloneError } from './checkout.js';
import { git } from '../util/git.js';
import { batchKey, reportField, type AttemptReport, type JobProgress, type QueueJobData, type WorkerRef } from './job.js';
import { openRedis } from './redis-connection.js';
import type { QueueUrl } from './redis-url.js';
import { runJobAttempt } from './run-job.js';
import { lockWorkdir } from './workdir-lock.js';

export interface WorkerOptions {
  queue: QueueUrl;
  concurrency: number;
  workdir: string;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** How often a running job checks whether its batch was cancelled. */
  cancelPollMs?: number;
}

export interface WorkerDeps {
  runPlan: RunPlanFn;
  log: (line: string) => void;
  now?: () => Date;
}

export interface RunningWorker {
  /** First SIGTERM: take no new job; the running ones finish. */
  drain(): void;
  /** Second SIGTERM: stop the running plans and give their jobs back to the queue. */
  handBack(): void;
  /** Resolves with the exit code once the worker has stopped. */
  done: Promise<number>;
}

type JobResult = AttemptReport | { skipped: string };

const HAND_BACK = 'handed back';

export async function startWorker(options: WorkerOptions, deps: WorkerDeps): Promise<RunningWorker> {
  const now = deps.now ?? (() => new Date());
  const workdir = resolve(options.workdir);
  await mkdir(workdir, { recursive: true });
  const unlockWorkdir = lockWorkdir(workdir);
  const checkouts = new Checkouts(workdir);
  const sharedLimits = new SharedLimits();
  const me: WorkerRef = { id: `${hostname()}-${process.pid}`, host: hostname(), pid: process.pid };
  let lastRedisError = '';
  const redis = openRedis(options.queue, (m) => {
    if (m !== lastRedisError) deps.log(`redis: ${m}`);
    lastRedisError = m;
  });
  redis.on('ready', () => {
    if (lastRedisError) deps.log('redis: connected again');
    lastRedisError = '';
  });
  const running = new Map<string, { batchId: string; controller: AbortController }>();
  let exitCode = 0;
  let closing: Promise<void> | null = null;

  const expire = (key: string) => redis.expire(key, QUEUE.keepSeconds);

  const handBackJob = async (job: Job<QueueJobData>, token: string | undefined): Promise<never> => {
    await job.moveToDelayed(Date.now() + 500, token);
    throw new DelayedError();
  };

  const processor = async (job: Job<QueueJobData, JobResult>, token?: string): Promise<JobResult> => {
    const data = job.data;
    // A job from a newer ralph: fail it with a reason the coordinator shows, rather than guess.
    if (data?.v !== 1) throw new UnrecoverableError(`job format ${String(data?.v)} is not one this ralph understands; upgrade ralph on worker ${me.host}`);
    const cancelKey = batchKey(data.batchId, 'cancel');
    if ((await redis.get(cancelKey)) !== null) return { skipped: 'the batch was cancelled before this plan started' };
    const attemptsKey = batchKey(data.batchId, 'attempts');
    const tentative = Number((await redis.hget(attemptsKey, data.plan)) ?? 0) + 1;
    const branch = branchName(data.batchId, data.plan);
    let checkout;
    try {
      checkout = await checkouts.prepare({
        remote: data.remote,
        commit: data.commit,
        branch,
        // Any earlier attempt (a retry, a resumed batch's run again) may have pushed the branch.
        continueBranch: tentative > 1,
      });
    } catch (error) {
      if (!(error instanceof CloneError)) throw error;
      // This worker cannot get the code; another may. The job goes back untouched and this
      // worker stops: taking more jobs would only hand each of them back too.
      const text = `worker ${me.host} (pid ${me.pid}) ${error.message}; it handed ${data.plan} back and stops`;
      deps.log(`error: ${error.message}; job ${job.id} handed back; this worker stops (fix its git access and start it again)`);
      await redis.rpush(batchKey(data.batchId, 'warnings'), JSON.stringify({ plan: data.plan, message: text }));
      await expire(batchKey(data.batchId, 'warnings'));
      exitCode = 1;
      void stop(false);
      return handBackJob(job, token);
    }
    const attempt = await redis.hincrby(attemptsKey, data.plan, 1);
    await expire(attemptsKey);
    const runDir = join(workdir, 'runs', data.batchId, runDirName(data.plan, attempt));
    const controller = new AbortController();
    running.set(job.id!, { batchId: data.batchId, controller });
    const progress: JobProgress = {
      worker: me,
      attempt,
      branch,
      runDir,
      checkout: checkout.path,
      startedAt: now().toISOString(),
      iteration: 0,
      maxIterations: 0,
      fresh: true,
      prompt: 'full',
      at: now().toISOString(),
    };
    const send = () => {
      progress.at = now().toISOString();
      return job.updateProgress(progress).catch(() => undefined);
    };
    // Before the run starts, so whoever sees its files can also see who runs it.
    await send();
    const heartbeat = setInterval(() => void send(), 5_000);
    deps.log(`${data.plan}: attempt ${attempt} of batch ${data.batchId} started in ${checkout.path}`);
    let report: Omit<AttemptReport, 'final'>;
    try {
      report = await runJobAttempt({
        data,
        attempt,
        worker: me,
        checkout: checkout.path,
        runDir,
        branch,
        previous: Array.from({ length: Math.max(0, attempt - data.firstAttempt) }, (_, i) => `attempts/${data.plan}.attempt-${data.firstAttempt + i}.md`),
        runPlan: deps.runPlan,
        sharedLimits,
        signal: controller.signal,
        handedBack: () => controller.signal.aborted && controller.signal.reason === HAND_BACK,
        onEvent: (e: RunEvent) => {
          if (e.type === 'iteration-start') {
            progress.iteration = e.iteration;
            progress.maxIterations = e.maxIterations;
            progress.fresh = e.fresh;
            progress.prompt = e.prompt;
            void send();
          }
        },
        commit: (message) => checkouts.exclusive(data.remote, () => commitPlanBranch({ cwd: checkout.path, branch, message })),
        head: () => git(checkout.path, ['rev-parse', 'HEAD']),
        push: (head) => checkouts.push({ remote: data.remote, branch, head }),
        now,
      });
    } finally {
      clearInterval(heartbeat);
      running.delete(job.id!);
      checkout.release();
    }
    if (controller.signal.aborted && controller.signal.reason === HAND_BACK) {
      // Not this plan's fault: the attempt does not count, and another worker starts it afresh.
      await redis.hincrby(attemptsKey, data.plan, -1);
      deps.log(`${data.plan}: attempt ${attempt} stopped and handed back to the queue`);
      return handBackJob(job, token);
    }
    const final = !(RETRYABLE.has(report.outcome) && attempt < data.firstAttempt + 1 && !controller.signal.aborted);
    const full: AttemptReport = { ...report, final };
    const reportsKey = batchKey(data.batchId, 'reports');
    await redis.hset(reportsKey, reportField(data.plan, attempt), JSON.stringify(full));
    await expire(reportsKey);
    // The coordinator wakes at once rather than at its next poll.
    await redis.publish(batchKey(data.batchId, 'news'), data.plan);
    deps.log(`${data.plan}: attempt ${attempt} ended ${report.outcome}${final ? '' : '; it will be retried'}`);
    // Throwing hands the job back to BullMQ as a failed attempt: its retry.
    if (!final) throw new Error(`attempt ${attempt} ended ${report.outcome}: ${report.reason}`);
    return full;
  };

  const worker = new Worker<QueueJobData, JobResult>(QUEUE.name, processor, {
    connection: redis,
    concurrency: options.concurrency,
    lockDuration: options.lockDurationMs ?? QUEUE.lockDurationMs,
    stalledInterval: options.stalledIntervalMs ?? QUEUE.stalledIntervalMs,
    maxStalledCount: 1,
    autorun: false,
  });
  worker.on('error', (error) => {
    const m = String((error as Error)?.message ?? error);
    if (m !== lastRedisError) deps.log(`queue: ${m}`);
  });
  worker.on('failed', (job, error) => {
    if (job && !(error instanceof DelayedError) && !String(error.message).startsWith('attempt ')) deps.log(`${job.data.plan}: job failed: ${error.message}`);
  });

  // Ctrl+C on the coordinator sets the batch's cancel key; running plans stop as if interrupted.
  const cancelPoll = setInterval(() => {
    for (const [, r] of running) {
      if (r.controller.signal.aborted) continue;
      redis.get(batchKey(r.batchId, 'cancel')).then(
        (v) => {
          if (v !== null) r.controller.abort(new Error('the batch was cancelled'));
        },
        () => undefined,
      );
    }
  }, options.cancelPollMs ?? 1_000);

  const stop = (force: boolean): Promise<void> => {
    closing ??= worker.close(force).then(() => undefined);
    return closing;
  };

  const done = (async () => {
    await worker.waitUntilReady();
    deps.log(`worker ${me.id} on ${options.queue.display}, ${options.concurrency} at a time, workdir ${workdir}`);
    await worker.run().catch((error: unknown) => {
      deps.log(`queue: ${(error as Error).message}`);
      exitCode = 1;
    });
    await closing;
    clearInterval(cancelPoll);
    await redis.quit().catch(() => redis.disconnect());
    unlockWorkdir();
    return exitCode;
  })();

  return {
    drain: () => {
      deps.log(`draining: no new jobs; waiting for ${running.size} running plan(s) to finish (send SIGTERM again to hand them back)`);
      void stop(false);
    },
    handBack: () => {
      deps.log(`handing ${running.size} running plan(s) back to the queue`);
      exitCode = 130;
      for (const [, r] of running) r.controller.abort(HAND_BACK);
      void stop(false);
    },
    done,
  };
}
