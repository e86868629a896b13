// `ralph worker --queue URL`: takes plans off a queued batch's queue and runs them (docs/queue.md).
// The command owns SIGINT/SIGTERM: the first drains (running plans finish, no new ones start), the
// second hands the running plans back to the queue for another worker.
import { LIMITS } from '../contract.js';
import { UsageError } from '../errors.js';
import { duration, positiveInt } from './exec-options.js';
import type { RunPlanFn } from '../batch/index.js';
import type { RegisterCommand } from './context.js';

interface WorkerFlags {
  queue?: string;
  concurrency?: number;
  workdir?: string;
  lockDuration?: number;
  stalledInterval?: number;
}

export const registerWorker: RegisterCommand = (program, ctx) => {
  program
    .command('worker')
    .description('run plans from a queued batch (`ralph batch --queue`): clone, run, commit, push, report')
    .option('--queue <url>', 'the Redis of the queue: redis://host:port[/db]')
    .option('--concurrency <n>', 'plans running at once on this machine (default 1)', positiveInt('--concurrency', LIMITS.concurrency))
    .option('--workdir <dir>', 'clones, checkouts and run directories, one worker per folder (default: ~/.ralph/worker)')
    .option('--lock-duration <duration>', "how long a job's lock lasts without renewal; a dead worker's job is taken up after it (default 30s)", duration('--lock-duration'))
    .option('--stalled-interval <duration>', 'how often this worker looks for jobs whose worker died (default 30s)', duration('--stalled-interval'))
    .addHelpText(
      'after',
      '\nAfter `--`: the agent program and its arguments for every plan (default: the agent of the repository\'s ralph.config.yaml, or the plan\'s command:); jobs never carry one.\nThe shared secret of the queue comes from RALPH_QUEUE_SECRET or the file RALPH_QUEUE_SECRET_FILE names: jobs not sealed with it are refused.\nSignals: SIGTERM (or Ctrl+C) once: finish the running plans, take no new ones; twice: stop them and hand their jobs back.\nExit codes: 0 stopped after draining, 1 a queue, git or workdir error (e.g. cannot clone, disk full), 64 usage error (or the workdir used by another worker), 130 handed jobs back.',
    )
    .action(async (flags: WorkerFlags) => {
      if (flags.queue === undefined) throw new UsageError('--queue is required', 'usage: ralph worker --queue redis://host:port[/db] [--concurrency N] [--workdir DIR] [-- <command> [args…]]');
      const { parseQueueUrl, startWorker } = await import('../queue/index.js');
      const { probeRedis } = await import('../queue/redis-connection.js');
      const { loadRunPlan } = await import('../batch/index.js');
      const { hasLifecycle, loadProject } = await import('./project.js');
      const { createRunLifecycle } = await import('../notify/index.js');
      const { resolve } = await import('node:path');
      const { defaultWorkdir } = await import('../queue/workdir-layout.js');
      // Each plan runs with the config file of its checkout (the repository's, at the batch's
      // commit) and this machine's environment, as `ralph exec` in that checkout would, and as a
      // local batch's plans get their hooks: without notifications, which are the batch's.
      const withProjectConfig =
        (run: RunPlanFn): RunPlanFn =>
        async (options, hooks) => {
          const project = loadProject(options.cwd ?? process.cwd(), ctx.env, {});
          const own = hasLifecycle(project) ? createRunLifecycle({ hooks: project.config.hooks, targets: [], redact: project.redact, env: ctx.env }) : undefined;
          // The job's checkpoints wrap the project's hooks (docs/deliver.md#checkpoints), as in a local batch.
          const lifecycle = hooks?.wrapLifecycle ? hooks.wrapLifecycle(own) : own;
          return run(options, { ...hooks, project: project.config, hideEnv: project.hideEnv, ...(lifecycle ? { lifecycle } : {}) });
        };
      const { readQueueSecret } = await import('../queue/seal.js');
      const q = parseQueueUrl(flags.queue);
      const secret = readQueueSecret(ctx.env);
      await probeRedis(q);
      const log = (line: string) => void ctx.stderr.write(`${new Date().toISOString().slice(0, 19)}Z ralph worker: ${line}\n`);
      const worker = await startWorker(
        {
          queue: q,
          concurrency: flags.concurrency ?? 1,
          workdir: flags.workdir ? resolve(flags.workdir) : defaultWorkdir(),
          secret,
          ...(ctx.passThrough.length > 0 ? { command: ctx.passThrough } : {}),
          lockDurationMs: flags.lockDuration,
          stalledIntervalMs: flags.stalledInterval,
        },
        { runPlan: withProjectConfig(await loadRunPlan()), log },
      );
      let signals = 0;
      const onSignal = () => {
        signals++;
        if (signals === 1) worker.drain();
        else worker.handBack();
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        ctx.exitCode = await worker.done;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
};
