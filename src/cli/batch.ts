// `ralph batch <plans…|folder>`: many plans, each one agent, with flux-drive result files
// (docs/batch.md). The command parses flags, owns SIGINT/SIGTERM and picks a renderer; the work is
// runBatch's.
import { Option } from 'commander';
import { CONFIG_FILE, EXIT_CODES, LIMITS } from '../contract.js';
import { UsageError } from '../errors.js';
import type { BatchDeps, SharedExecOptions } from '../batch/index.js';
import type { QueuedBatchDeps } from '../queue/index.js';
import { addExecOptions, duration, execOptionsFrom, positiveInt, type RawExecFlags } from './exec-options.js';
import type { RegisterCommand } from './context.js';
import { prOption, type PrFlag } from './pr-flag.js';

interface BatchFlags extends RawExecFlags {
  concurrency?: number;
  out?: string;
  isolate?: 'worktree' | 'none';
  planTimeout?: number;
  json?: boolean;
  queue?: string;
  allowDirty?: boolean;
  pr?: PrFlag;
  checkpoint?: boolean;
}

/** exec's options minus the ones that name one run's files (each plan has its own) and batch's own --resume. */
function sharedExecOptions(flags: BatchFlags, passThrough: string[]): SharedExecOptions {
  if (flags.runDir !== undefined) throw new UsageError('--run-dir names one run; in a batch each plan runs in <out>/runs/<plan id>', 'use --out to choose the batch folder');
  if (flags.summary !== undefined) throw new UsageError('--summary names one summary file; in a batch each plan uses its own (front matter `summary:`, else <plan>.summary.json)');
  const { planPath: _p, runDir: _r, resume: _s, ...shared } = { planPath: '', ...execOptionsFrom({ ...flags, resume: undefined }, passThrough, process.cwd()) };
  return shared;
}

export const registerBatch: RegisterCommand = (program, ctx) => {
  const command = program
    .command('batch')
    .description('run many plans, each one agent, with a result file per plan and an index (nightly batches)')
    .argument('[plans...]', 'plan files, or a folder of *.md plans')
    .option('--concurrency <n>', 'plans running at once (default 1)', positiveInt('--concurrency', LIMITS.concurrency))
    .option('--out <dir>', 'batch folder (default .ralph/batches/<timestamp>)')
    .addOption(new Option('--isolate <mode>', 'worktree: each plan in its own git worktree (default when concurrency > 1 in a git repository); none: plans share the folder').choices(['worktree', 'none']))
    .option('--plan-timeout <duration>', 'bounds one plan (e.g. 45m); a plan past it is stopped and retried once (default: none; each run still ends at its --max-runtime)', duration('--plan-timeout', LIMITS.planTimeoutMs))
    .option('--resume <dir>', 'continue the batch in DIR: runs the plans without a final result')
    .option('--allow-dirty', 'run plans or agent scripts that differ from the last commit: worktrees start from a snapshot of the working tree (default: refuse, naming the files)')
    .option('--json', 'events as NDJSON on stdout (tagged with plan), nothing else there')
    .option('--queue <url>', 'queue the plans on Redis (redis://host:port[/db]) for `ralph worker`s on any machine; needs RALPH_QUEUE_SECRET, and the agent is the workers\'; with --pr the workers push and this machine opens the pull requests (docs/queue.md)')
    .addOption(prOption())
    .option('--checkpoint', "commit on each plan's branch after every iteration that changed files, on the workers too with --queue (default: deliver.checkpoint; deliver.squash folds them into one at the end)");
  addExecOptions(command);
  // Each plan of a batch has its own run directory and summary: these two exec options are refused here.
  for (const option of command.options) if (option.long === '--run-dir' || option.long === '--summary') option.hideHelp();
  command.addHelpText('after', '\nAfter `--`: the agent program and its arguments (the command executor), as for `ralph exec`.\nExit codes: 0 all complete, 1 any failed or errored, 2 any blocked, 3 otherwise, 64 usage error, 130 interrupted.');
  command.action(async (planArgs: string[], flags: BatchFlags) => {
    const passThrough = ctx.passThrough;
    if (flags.resume === undefined && planArgs.length === 0) throw new UsageError('no plans given', 'usage: ralph batch <plans…|folder> [options] [-- <command> [args…]], or ralph batch --resume <dir>');

    // Loaded here so other commands do not pay for batch's modules at start-up.
    const { createJsonProgress, createPlainProgress, createTtyProgress, runBatch } = await import('../batch/index.js');
    const { createBatchListener, createRunLifecycle } = await import('../notify/index.js');
    // Loaded here: the config file's schema and the notifiers are for the commands that run plans.
    const { batchDefaults, hasLifecycle, loadProject } = await import('./project.js');
    const project = loadProject(flags.cwd ?? process.cwd(), ctx.env, flags);
    // A resumed batch keeps the options it was started with; the config's defaults are for new ones.
    const defaults = flags.resume === undefined ? batchDefaults(project.config) : {};
    // Progress is for people, on stderr; stdout carries --json events only (docs/first-hour.md).
    const stderr = ctx.stderr as NodeJS.WriteStream;
    const renderer = flags.json ? createJsonProgress(ctx.stdout) : stderr.isTTY ? createTtyProgress(stderr) : createPlainProgress(ctx.stderr);
    const controller = new AbortController();
    // The batch folder, once known: resume hints give the whole command (docs/first-hour.md).
    let out = flags.resume ?? flags.out;
    const resumeHint = () => `ralph batch --resume ${out ?? '<batch folder>'}`;
    const onSignal = (name: NodeJS.Signals) => {
      if (controller.signal.aborted) {
        // A second Ctrl+C: leave now. The partial files left behind are what --resume handles.
        renderer.stop();
        ctx.stderr.write(`ralph: ${name} again: stopping at once; \`${resumeHint()}\` re-runs what was cut short\n`);
        process.exit(EXIT_CODES.interrupted);
      }
      ctx.stderr.write(`\nralph: ${name}: stopping every running plan (their results are written; press Ctrl+C again to stop at once; continue with: ${resumeHint()})\n`);
      controller.abort(new Error(name));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // Hooks and notifications (docs/config.md): runs get the per-run hooks; the batch notifies for its plans.
    const listener = createBatchListener({
      hooks: project.config.hooks,
      targets: project.targets,
      redact: project.redact,
      cwd: process.cwd(),
      env: ctx.env,
      onWarning: (message) => renderer.onEvent({ type: 'warning', message }),
    });
    // --pr (docs/deliver.md): the forge is checked now, before any plan runs, not at 3 a.m.
    const prMode = flags.pr ?? project.config.deliver.pr ?? 'off';
    // The same delivery for a local batch's plans and a queued batch's (QueuedBatchDeps takes its wider input).
    let deliver: QueuedBatchDeps['deliver'];
    let isolate = flags.isolate ?? defaults.isolate;
    const checkpoint = flags.checkpoint ?? project.config.deliver.checkpoint ?? false;
    // A queued batch's workers always run a plan in its own checkout, on its own branch.
    if (checkpoint && flags.resume === undefined && flags.queue === undefined && prMode === 'off') {
      if (isolate === 'none') throw new UsageError('--checkpoint commits on each plan\'s own branch, and --isolate none shares one folder', 'leave --isolate out (with --checkpoint each plan gets its own worktree)');
      isolate = 'worktree';
    }
    if (prMode !== 'off') {
      // A queued batch's workers push the branches; the pull requests are opened here (docs/queue.md).
      if (flags.resume === undefined && flags.queue === undefined) {
        if (isolate === 'none') throw new UsageError('--pr needs each plan on its own branch, and --isolate none shares one folder', 'leave --isolate out (with --pr each plan gets its own worktree)');
        isolate = 'worktree';
      }
      const { gitTopLevel } = await import('../batch/worktree.js');
      const top = await gitTopLevel(process.cwd());
      if (!top) throw new UsageError('--pr needs a git repository, and the current folder is not in one');
      const { deliverPlan, openForge } = await import('../deliver/index.js');
      const forge = await openForge(top, project.config.deliver, ctx.env);
      const mode = prMode;
      deliver = (o) => deliverPlan(forge, mode, o);
    }
    const deps: BatchDeps = {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'batch-start') out = e.out;
        renderer.onEvent(e);
        listener.onEvent(e);
      },
      wantOutput: flags.json === true,
      ...(deliver ? { deliver } : {}),
      ...(checkpoint ? { checkpoints: { squash: project.config.deliver.squash === true } } : {}),
      extras: {
        project: project.config,
        // With --pr, ralph opens the pull requests: the agent gets no GitHub token (docs/deliver.md).
        hideEnv: deliver ? [...project.hideEnv, 'GITHUB_TOKEN', 'GH_TOKEN'] : project.hideEnv,
        ...(hasLifecycle(project) ? { lifecycle: createRunLifecycle({ hooks: project.config.hooks, targets: [], redact: project.redact, env: ctx.env, signal: controller.signal }) } : {}),
      },
    };
    try {
      // Queued batches (docs/queue.md): the same files, the plans run by `ralph worker`s.
      const { isQueuedBatch } = await import('../queue/is-queued-batch.js');
      if (flags.queue !== undefined || (flags.resume !== undefined && (await isQueuedBatch(process.cwd(), flags.resume)))) {
        const { runQueuedBatch } = await import('../queue/index.js');
        const refused = flags.concurrency !== undefined ? '--concurrency' : flags.isolate !== undefined ? '--isolate' : undefined;
        if (refused) throw new UsageError(`${refused} does not apply to a queued batch: each worker sets its own (ralph worker --concurrency N) and always uses a checkout per plan`);
        if (flags.allowDirty === true) {
          throw new UsageError('--allow-dirty does not apply to a queued batch: workers run the plans as committed and pushed', 'commit the plans and push: git push');
        }
        if (flags.config !== undefined) {
          throw new UsageError('--config does not apply to a queued batch: each worker reads the config file of its checkout', `commit the settings as ${CONFIG_FILE} in the repository, and push`);
        }
        const summary = await runQueuedBatch(
          { cwd: process.cwd(), queue: flags.queue, plans: planArgs, resume: flags.resume, out: flags.out ?? defaults.out, planTimeoutMs: flags.planTimeout ?? defaults.planTimeoutMs, exec: sharedExecOptions(flags, passThrough), env: ctx.env, agentConfig: project.config, ...(deps.checkpoints ? { checkpoints: deps.checkpoints } : {}) },
          { signal: controller.signal, onEvent: deps.onEvent, ...(deliver ? { deliver } : {}) },
        );
        ctx.exitCode = summary.exitCode;
        await listener.finish();
        return;
      }
      const summary = await runBatch(
        {
          cwd: process.cwd(),
          plans: planArgs,
          resume: flags.resume,
          out: flags.out ?? defaults.out,
          concurrency: flags.concurrency ?? defaults.concurrency,
          isolate,
          planTimeoutMs: flags.planTimeout ?? defaults.planTimeoutMs,
          allowDirty: flags.allowDirty === true,
          exec: sharedExecOptions(flags, passThrough),
        },
        deps,
      );
      ctx.exitCode = summary.exitCode;
      await listener.finish();
    } finally {
      renderer.stop();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  });
};
