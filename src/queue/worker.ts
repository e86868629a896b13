// `ralph worker` as a function (docs/queue.md): a BullMQ worker on the shared queue that runs each
// job's plan with ralph's own loop in a checkout of the job's commit, and reports back. It runs
// only jobs sealed with the shared secret, and never a command from a job. Attempt numbers are
// ralph's own (a counter per plan in Redis, counted when a run starts, never reused), and with the
// job's lock token they fence an attempt: one that lost its job commits, pushes and reports
// nothing. A handed-back attempt keeps its number but does not use up the plan's retry; a job
// taken up after its worker died does.
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { mkdir, readdir } from 'node:fs/promises';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import { QUEUE } from '../contract.js';
import { UsageError } from '../errors.js';
import { branchName, RETRYABLE, runDirName, type RunPlanFn } from '../batch/index.js';
import { oneLine } from '../batch/one-line.js';
import type { RunEvent } from '../loop/index.js';
import { SharedLimits } from '../loop/limit-wait.js';
import { commitPlanBranch } from '../batch/commit-plan-branch.js';
import { squashWorktree } from '../deliver/checkpoint.js';
import { Checkouts, CloneError } from './checkout.js';
import { git } from '../util/git.js';
import { batchKey, openJob, reportField, type AttemptReport, type JobProgress, type QueueJob, type WorkerRef } from './job.js';
import { diesWithWorker, markWorkerProcess, stopEarlierLife, stopLeftoversIn } from './leftovers.js';
import { openRedis } from './redis-connection.js';
import type { QueueUrl } from './redis-url.js';
import { runJobAttempt } from './run-job.js';
import { seal, sealText } from './seal.js';
import { WORKDIR_PARTS } from './workdir-layout.js';
import { lockWorkdir } from './workdir-lock.js';
import { workdirProblem } from './workdir-health.js';

export interface WorkerOptions {
  queue: QueueUrl;
  concurrency: number;
  workdir: string;
  /** The shared secret: jobs not sealed with it are refused, and what this worker writes is sealed with it. */
  secret: string;
  /** The worker's own agent command (`ralph worker … -- <command>`): jobs never carry one. */
  command?: string[];
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** How often a running job checks whether its batch was cancelled, and whether it still owns its job. */
  cancelPollMs?: number;
  /** A job of a newer format goes back to the queue for this long before any worker takes it again. */
  newerFormatDelayMs?: number;
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

/** What BullMQ keeps as a finished job's return value: the report itself is in the batch's hash only. */
type JobResult = { plan: string; attempt: number; outcome: string } | { skipped: string };

const HAND_BACK = 'handed back';
const LOST = 'lost its job';

/** The attempt no longer owns its plan (its job lock expired and another worker took the job, or Redis lost it). */
class LostJobError extends Error {}

// The attempt counter of a plan: one more than the highest number this plan ever had, and at least
// `min` (the first attempt of the job, and past every run directory this worker has for the plan),
// so no number is ever used twice, across hand-backs, restarts and a Redis that lost its data.
const START_ATTEMPT = `
local n = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local min = tonumber(ARGV[2])
if n < min - 1 then n = min - 1 end
n = n + 1
redis.call('HSET', KEYS[1], ARGV[1], n)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return n`;

// The fencing check: the job's lock still holds this attempt's token, and no later attempt started.
// Given the reports hash and the news channel too (4 keys), it also stores the report: the check
// and the write are one step, so a report is stored only while the attempt owns its plan.
const OWNS = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(redis.call('HGET', KEYS[2], ARGV[2]) or '0') ~= tonumber(ARGV[3]) then return 0 end
if #KEYS == 4 then
  redis.call('HSET', KEYS[3], ARGV[4], ARGV[5])
  redis.call('EXPIRE', KEYS[3], ARGV[6])
  redis.call('PUBLISH', KEYS[4], ARGV[2])
end
return 1`;

/** The highest attempt number of `plan` among this worker's run directories of the batch (0 when none). */
async function localAttempts(workdir: string, batchId: string, plan: string): Promise<number> {
  let names: string[] = [];
  try {
    names = await readdir(join(workdir, WORKDIR_PARTS.runs, batchId));
  } catch {
    return 0;
  }
  let max = 0;
  for (const name of names) {
    if (name === plan) max = Math.max(max, 1);
    else if (name.startsWith(`${plan}.`) && /^\d+$/.test(name.slice(plan.length + 1))) max = Math.max(max, Number(name.slice(plan.length + 1)));
  }
  return max;
}

async function makeWorkdir(workdir: string): Promise<void> {
  try {
    await mkdir(workdir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') throw new UsageError(`--workdir ${workdir} is not a folder`, 'give a folder (it is created when missing)');
    throw new UsageError(`cannot make --workdir ${workdir}: ${code ?? String(error)}`, 'give a folder this user can write');
  }
}

export async function startWorker(options: WorkerOptions, deps: WorkerDeps): Promise<RunningWorker> {
  const now = deps.now ?? (() => new Date());
  const workdir = resolve(options.workdir);
  const secret = options.secret;
  await makeWorkdir(workdir);
  const unlockWorkdir = lockWorkdir(workdir);
  // Whatever an earlier worker on this workdir left running goes before any checkout is reused.
  const stopped = await stopEarlierLife(workdir);
  if (stopped > 0) deps.log(`stopped ${stopped} process(es) left running by an earlier worker on ${workdir}`);
  markWorkerProcess(workdir);
  const sickAtStart = await workdirProblem(workdir);
  if (sickAtStart !== null) {
    deps.log(`error: the workdir ${workdir} is not usable: ${sickAtStart}; this worker takes no job (free space or fix its permissions, then start it again)`);
    unlockWorkdir();
    return { drain: () => undefined, handBack: () => undefined, done: Promise.resolve(1) };
  }
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
  interface Running {
    batchId: string;
    controller: AbortController;
    owns: () => Promise<boolean>;
    checking: boolean;
  }
  const running = new Map<string, Running>();
  let exitCode = 0;
  let closing: Promise<void> | null = null;
  let sick: string | null = null;
  const newerSeen = new Set<string>();

  const expire = (key: string) => redis.expire(key, QUEUE.keepSeconds);
  const lockKey = (job: Job) => `${QUEUE.bullPrefix}:${QUEUE.name}:${job.id}:lock`;

  const handBackJob = async (job: Job, token: string | undefined, delayMs = 500): Promise<never> => {
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  };

  const warn = async (batchId: string, plan: string, message: string) => {
    await redis.rpush(batchKey(batchId, 'warnings'), sealText(secret, 'warning', { plan, message }));
    await expire(batchKey(batchId, 'warnings'));
  };

  /** The workdir cannot take plans: hand back what this worker holds and stop (exit 1). */
  const stepAside = (why: string) => {
    if (sick !== null) return;
    sick = why;
    exitCode = 1;
    deps.log(`error: the workdir ${workdir} is not usable: ${why}; handing back ${running.size} running plan(s) and stopping (free space or fix its permissions, then start the worker again)`);
    for (const [, r] of running) r.controller.abort(HAND_BACK);
    void stop(false);
  };

  const processor = async (job: Job<QueueJob, JobResult>, token?: string): Promise<JobResult> => {
    const opened = openJob(secret, job.data);
    if (opened.kind === 'newer') {
      // A newer ralph queued it: it goes back for a newer worker, and this one carries on.
      if (!newerSeen.has(job.id!)) deps.log(`job ${oneLine(job.id ?? '?')} has format ${opened.format}, newer than this ralph reads; handed back for a newer worker (upgrade ralph on ${me.host})`);
      newerSeen.add(job.id!);
      return handBackJob(job, token, options.newerFormatDelayMs ?? 10_000);
    }
    if (opened.kind === 'refused') {
      deps.log(`refused job ${oneLine(job.id ?? '?')}: ${opened.why}; nothing of it runs`);
      throw new UnrecoverableError(`refused by worker ${me.host}: ${opened.why}; nothing of it ran (the coordinator and the workers need the same RALPH_QUEUE_SECRET)`);
    }
    const data = opened.data;
    const problem = sick ?? (await workdirProblem(workdir));
    if (problem !== null) {
      stepAside(problem);
      await warn(data.batchId, data.plan, `worker ${me.host} (pid ${me.pid}) cannot use its workdir (${problem}); it handed ${data.plan} back and stops`).catch(() => undefined);
      return handBackJob(job, token);
    }
    const cancelKey = batchKey(data.batchId, 'cancel');
    if ((await redis.get(cancelKey)) !== null) return { skipped: 'the batch was cancelled before this plan started' };
    const attemptsKey = batchKey(data.batchId, 'attempts');
    const earlier = Number((await redis.hget(attemptsKey, data.plan)) ?? 0);
    const branch = branchName(data.batchId, data.plan);
    let checkout;
    try {
      checkout = await checkouts.prepare({
        remote: data.remote,
        commit: data.commit,
        branch,
        // Any earlier attempt (a retry, a resumed batch's run again) may have pushed the branch.
        continueBranch: Math.max(earlier + 1, data.firstAttempt) > 1,
        // Nothing of an earlier attempt may still run in the checkout this job takes.
        beforeReuse: async (path) => {
          const n = await stopLeftoversIn(workdir, path);
          if (n > 0) deps.log(`stopped ${n} process(es) still running in ${path} before reusing it`);
        },
      });
    } catch (error) {
      if (!(error instanceof CloneError)) {
        const why = await workdirProblem(workdir);
        if (why === null) throw error;
        stepAside(why);
        return handBackJob(job, token);
      }
      // This worker cannot get the code; another may. The job goes back untouched and this
      // worker stops: taking more jobs would only hand each of them back too.
      const text = `worker ${me.host} (pid ${me.pid}) ${error.message}; it handed ${data.plan} back and stops`;
      deps.log(`error: ${error.message}; job ${job.id} handed back; this worker stops (fix its git access and start it again)`);
      await warn(data.batchId, data.plan, text);
      exitCode = 1;
      void stop(false);
      return handBackJob(job, token);
    }
    const min = Math.max(data.firstAttempt, (await localAttempts(workdir, data.batchId, data.plan)) + 1);
    const attempt = Number(await redis.eval(START_ATTEMPT, 1, attemptsKey, data.plan, String(min), String(QUEUE.keepSeconds)));
    const owns = async () => Number(await redis.eval(OWNS, 2, lockKey(job), attemptsKey, token ?? '', data.plan, String(attempt))) === 1;
    const runDir = join(workdir, WORKDIR_PARTS.runs, data.batchId, runDirName(data.plan, attempt));
    const controller = new AbortController();
    running.set(job.id!, { batchId: data.batchId, controller, owns, checking: false });
    const progress: JobProgress = {
      batchId: data.batchId,
      plan: data.plan,
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
      return job.updateProgress(seal(secret, 'progress', progress)).catch(() => undefined);
    };
    // Before the run starts, so whoever sees its files can also see who runs it.
    await send();
    const heartbeat = setInterval(() => void send(), 5_000);
    deps.log(`${data.plan}: attempt ${attempt} of batch ${data.batchId} started in ${checkout.path}`);
    const handedBack = () => controller.signal.aborted && controller.signal.reason === HAND_BACK;
    const lost = () => controller.signal.aborted && controller.signal.reason === LOST;
    const fence = async () => {
      if (lost() || !(await owns())) {
        if (!controller.signal.aborted) controller.abort(LOST);
        throw new LostJobError(`attempt ${attempt} no longer owns ${data.plan}: another worker took its job`);
      }
    };
    let report: Omit<AttemptReport, 'final' | 'batchId'>;
    try {
      report = await runJobAttempt({
        data: { ...data, exec: { ...data.exec, ...(options.command?.length ? diesWithWorker(options.command, data.exec.streamFormat, data.exec.cwd !== undefined ? join(checkout.path, data.exec.cwd) : checkout.path) : {}) } },
        attempt,
        worker: me,
        checkout: checkout.path,
        runDir,
        branch,
        previous: Array.from({ length: Math.max(0, attempt - data.firstAttempt) }, (_, i) => `attempts/${data.plan}.attempt-${data.firstAttempt + i}.md`),
        runPlan: async (opts, hooks) => {
          try {
            return await deps.runPlan(opts, hooks);
          } finally {
            // Whatever the run left running in the checkout goes before anything is committed.
            await stopLeftoversIn(workdir, checkout.path);
            const why = await workdirProblem(workdir);
            if (why !== null) stepAside(why);
          }
        },
        sharedLimits,
        signal: controller.signal,
        handedBack: () => handedBack() || lost(),
        handBackReason: () => `handed back to the queue: ${sick !== null ? `worker ${me.host} could not use its workdir (${sick})` : `worker ${me.host} was stopped`}; it does not count as a retry`,
        onEvent: (e: RunEvent) => {
          if (e.type === 'iteration-start') {
            progress.iteration = e.iteration;
            progress.maxIterations = e.maxIterations;
            progress.fresh = e.fresh;
            progress.prompt = e.prompt;
            void send();
          }
        },
        commit: async (message) => {
          await fence();
          return checkouts.exclusive(data.remote, async () => {
            const made = await commitPlanBranch({ cwd: checkout.path, branch, message });
            if (!data.checkpoints?.squash) return made;
            // deliver.squash: the checkpoints (and the agent's own commits) folded into this one commit on the batch's commit.
            await squashWorktree(checkout.path, data.commit, message);
            const head = await git(checkout.path, ['rev-parse', 'HEAD']);
            return { commit: head === data.commit ? null : head };
          });
        },
        // Local commits only: what reaches the remote is still the fenced push at the end.
        checkpoint: (message) => checkouts.exclusive(data.remote, () => commitPlanBranch({ cwd: checkout.path, branch, message })),
        head: () => git(checkout.path, ['rev-parse', 'HEAD']),
        push: async (head) => {
          await fence();
          try {
            await checkouts.push({ remote: data.remote, branch, head, expected: checkout.expected });
          } catch (error) {
            // The branch moved since this attempt started: a stale attempt of this plan pushed. The
            // attempt that owns the plan publishes anyway, over what it now finds there.
            await fence();
            const found = await checkouts.remoteHead(data.remote, branch);
            if (found === checkout.expected) throw error;
            deps.log(`${data.plan}: the branch was at ${found.slice(0, 12) || 'nothing'}, not ${checkout.expected.slice(0, 12) || 'nothing'} as when attempt ${attempt} started; pushing over it`);
            await fence();
            await checkouts.push({ remote: data.remote, branch, head, expected: found });
          }
        },
        now,
      });
    } finally {
      clearInterval(heartbeat);
      running.delete(job.id!);
      checkout.release();
    }
    if (lost() || !(await owns())) {
      deps.log(`${data.plan}: attempt ${attempt} lost its job (its lock expired and another worker took it, or Redis lost it): nothing of it was committed, pushed or reported`);
      throw new LostJobError(`attempt ${attempt} of ${data.plan} lost its job`);
    }
    const reportsKey = batchKey(data.batchId, 'reports');
    const store = async (full: AttemptReport) =>
      Number(
        await redis.eval(OWNS, 4, lockKey(job), attemptsKey, reportsKey, batchKey(data.batchId, 'news'), token ?? '', data.plan, String(attempt), reportField(data.plan, attempt), sealText(secret, 'report', full), String(QUEUE.keepSeconds)),
      ) === 1;
    if (handedBack()) {
      // Not this plan's fault: the attempt does not count as its retry, and another worker starts it afresh.
      const handbacksKey = batchKey(data.batchId, 'handbacks');
      await redis.hset(handbacksKey, reportField(data.plan, attempt), '1');
      await expire(handbacksKey);
      await store({ ...report, batchId: data.batchId, final: false, handedBack: true });
      deps.log(`${data.plan}: attempt ${attempt} stopped and handed back to the queue`);
      return handBackJob(job, token);
    }
    const handbacks = (await redis.hkeys(batchKey(data.batchId, 'handbacks'))).filter((f) => {
      const m = /^(.*)#(\d+)$/.exec(f);
      return m !== null && m[1] === data.plan && Number(m[2]) >= data.firstAttempt && Number(m[2]) < attempt;
    }).length;
    const counted = attempt - data.firstAttempt + 1 - handbacks;
    const final = !(RETRYABLE.has(report.outcome) && counted < 2 && !controller.signal.aborted);
    if (!(await store({ ...report, batchId: data.batchId, final }))) {
      deps.log(`${data.plan}: attempt ${attempt} lost its job before it reported: its report is dropped`);
      throw new LostJobError(`attempt ${attempt} of ${data.plan} lost its job`);
    }
    deps.log(`${data.plan}: attempt ${attempt} ended ${report.outcome}${final ? '' : '; it will be retried'}`);
    // Throwing hands the job back to BullMQ as a failed attempt: its retry.
    if (!final) throw new Error(`attempt ${attempt} ended ${report.outcome}: ${report.reason}`);
    return { plan: data.plan, attempt, outcome: report.outcome };
  };

  const worker = new Worker<QueueJob, JobResult>(QUEUE.name, processor, {
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
    if (job && !(error instanceof DelayedError) && !(error instanceof LostJobError) && !(error instanceof UnrecoverableError) && !String(error.message).startsWith('attempt ')) {
      deps.log(`${oneLine(String(job.data?.plan))}: job failed: ${error.message}`);
    }
  });

  // Ctrl+C on the coordinator sets the batch's cancel key; running plans stop as if interrupted.
  // An attempt that lost its job (its lock taken over, or gone with Redis's data) stops too.
  const cancelPoll = setInterval(() => {
    for (const [, r] of running) {
      if (r.controller.signal.aborted || r.checking) continue;
      r.checking = true;
      Promise.all([redis.get(batchKey(r.batchId, 'cancel')), r.owns()])
        .then(
          ([cancel, owns]) => {
            if (r.controller.signal.aborted) return;
            if (!owns) r.controller.abort(LOST);
            else if (cancel !== null) r.controller.abort(new Error('the batch was cancelled'));
          },
          () => undefined,
        )
        .finally(() => (r.checking = false));
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
