// `ralph exec`: options in, one run, an exit code out. The only place that owns process signals
// for a single run: the first Ctrl+C stops the executor and saves the state, a second one writes
// the result at once and leaves.
import { Option } from 'commander';
import { DEFAULTS, EXIT_CODES } from '../contract.js';
import { formatDuration } from '../util/duration.js';
import type { CliContext, RegisterCommand } from './context.js';
import { addExecOptions, execOptionsFrom, type RawExecFlags } from './exec-options.js';
import { prOption, type PrFlag } from './pr-flag.js';

export interface ExecFlags extends RawExecFlags {
  json?: boolean;
  quiet?: boolean;
  pr?: PrFlag;
  checkpoint?: boolean;
}

export const registerExec: RegisterCommand = (program, ctx) => {
  const command = program
    .command('exec')
    .description('run one plan to an outcome: an agent works through it, iteration after iteration, until ralph accepts it complete, or it is blocked, fails, or reaches a limit')
    .argument('<plan>', 'the plan file (Markdown with optional YAML front matter)')
    .usage('<plan.md> [options] [-- <command> [args…]]');
  addExecOptions(command)
    .option('--json', 'write every event as NDJSON on stdout, and nothing else there')
    .option('--quiet', "hide the executor's output (ralph's own lines stay)")
    .addOption(prOption())
    .option('--checkpoint', 'commit on ralph/<plan>/<run> after every iteration that changed files, leaving your checkout as it is (default: deliver.checkpoint)')
    .addOption(new Option('--resume <run>', 'continue an interrupted run: a run id, or latest; the agent command and options it started with are remembered (options given now override them)'))
    .addHelpText(
      'after',
      `
Executors: --executor, else command when -- is given, else the plan's executor, else anthropic
when ANTHROPIC_API_KEY is set. Limits: ${DEFAULTS.maxIterations} iterations, ${DEFAULTS.maxBailouts} bailouts in a row and
${formatDuration(DEFAULTS.maxRuntimeMs)} of runtime unless told otherwise; no cost limit unless --max-cost is given. Examples:
  ralph exec plans/demo.md
  ralph exec plan.md -- claude -p --dangerously-skip-permissions
  ralph exec plan.md --stream-format claude-json -- claude -p --output-format stream-json --verbose
  ralph exec plan.md -- codex exec
  ralph exec plan.md --resume latest

Exit codes: 0 complete, 1 failed, 2 blocked, 3 exhausted, 4 off the rails, 64 usage error or
invalid plan, 130 interrupted (resume with --resume).`,
    )
    .action(async (plan: string, flags: ExecFlags) => {
      ctx.exitCode = await execCommand(plan, flags, ctx);
    });
};

function lifecycleOption<T>(lifecycle: T | undefined): { lifecycle?: T } {
  return lifecycle ? { lifecycle } : {};
}

/** The hooks and notifications, wrapped by delivery when there is any (without --pr they stand alone). */
function withDelivery<T>(delivery: { wrap(lifecycle: T | undefined): T | undefined } | null | undefined, lifecycle: T | undefined): T | undefined {
  return delivery ? delivery.wrap(lifecycle) : lifecycle;
}

export async function execCommand(planPath: string, flags: ExecFlags, ctx: CliContext): Promise<number> {
  // Loaded here so other commands do not pay for the loop's modules at start-up.
  const { runPlan } = await import('../loop/index.js');
  const { colorWanted, createRenderer } = await import('../ui/index.js');
  const { createRunLifecycle } = await import('../notify/index.js');
  const options = { planPath, ...execOptionsFrom(flags, ctx.passThrough, process.cwd()) };
  // Loaded here: the config file's schema and the notifiers are for the commands that run plans.
  const { hasLifecycle, loadProject } = await import('./project.js');
  const project = loadProject(options.cwd, ctx.env, flags);
  // --pr and --checkpoint (docs/deliver.md): the forge is checked now, before the run.
  const { prepareExecDelivery } = await import('../deliver/index.js');
  const prMode = flags.pr ?? project.config.deliver.pr ?? 'off';
  const delivery = await prepareExecDelivery({
    cwd: options.cwd,
    env: ctx.env,
    settings: project.config.deliver,
    pr: prMode,
    checkpoint: flags.checkpoint ?? project.config.deliver.checkpoint ?? false,
  });
  let runDir: string | undefined;
  const renderer = createRenderer({
    stdout: ctx.stdout,
    stderr: ctx.stderr,
    json: flags.json === true,
    quiet: flags.quiet === true,
    color: colorWanted(ctx.env),
  });
  const controller = new AbortController();
  let emergency: (() => string) | undefined;
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts === 1) {
      renderer.note(`ralph: ${signal} received: stopping the executor and saving the run (press Ctrl+C again to stop at once)`);
      controller.abort();
      return;
    }
    try {
      const reason = emergency?.();
      // The status line goes, and the run's last line (its state, the whole resume command)
      // stands on a line of its own: the one thing to copy after a double Ctrl+C.
      renderer.close();
      if (reason !== undefined) ctx.stderr.write(`ralph: run interrupted (exit ${EXIT_CODES.interrupted}): ${reason}\n`);
    } finally {
      process.exit(EXIT_CODES.interrupted);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await runPlan(options, {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'run-start') runDir = e.runDir;
        renderer.onEvent(e);
      },
      wantOutput: !flags.quiet,
      onEmergencyExit: (write) => {
        emergency = write;
      },
      // The config file's agents and defaults, its hooks and notifications (docs/config.md).
      project: project.config,
      // With --pr, ralph opens the pull request: the agent gets no GitHub token (docs/deliver.md).
      hideEnv: prMode !== 'off' ? [...project.hideEnv, 'GITHUB_TOKEN', 'GH_TOKEN'] : project.hideEnv,
      ...lifecycleOption(withDelivery(delivery, hasLifecycle(project) ? createRunLifecycle({ hooks: project.config.hooks, targets: project.targets, redact: project.redact, env: ctx.env, signal: controller.signal }) : undefined)),
    });
    if (delivery && runDir) {
      const d = await delivery.finish(result, { planPath: options.planPath, runDir });
      if (d) renderer.note(`ralph: ${d.failed ? 'warning: ' : ''}${d.note}${d.prUrl ? ` ${d.prUrl}` : ''}`);
    }
    return result.exitCode;
  } finally {
    renderer.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
