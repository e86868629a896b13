// `ralph land <batch folder | branches…>` (docs/deliver.md#landing): the command parses flags,
// owns SIGINT/SIGTERM (the first stops the running check and leaves the target where it is; the
// landing resumes when run again) and prints the report; the work is runLand's.
import { Option } from 'commander';
import { EXIT_CODES } from '../contract.js';
import { UsageError } from '../errors.js';
import type { RegisterCommand } from './context.js';
import { duration } from './exec-options.js';
import { SANDBOX_MODES, type SandboxMode } from '../sandbox/settings.js';

interface LandFlags {
  order?: string;
  target?: string;
  strategy?: 'rebase' | 'merge';
  check: string[];
  checkTimeout?: number;
  push?: boolean;
  forge?: boolean;
  json?: boolean;
  out?: string;
  config?: string;
  sandbox?: SandboxMode;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export const registerLand: RegisterCommand = (program, ctx) => {
  program
    .command('land')
    .description("put accepted branches on the target one by one, each checked on the integrated tree first (its plan's verify commands and land.checks)")
    .argument('<batch-or-branches...>', 'a batch folder (its accepted plans, in order), or branch names')
    .option('--order <ids>', 'land these (plan ids or branches, comma-separated) in this order, and no others')
    .option('--target <branch>', 'the branch to land on (default: land.target, else the current branch)')
    .addOption(new Option('--strategy <how>', 'rebase: replay the branch on the target; merge: a merge commit (default: land.strategy, else rebase)').choices(['rebase', 'merge']))
    .option('--check <command>', 'also run this on the integrated tree (repeatable; added to land.checks)', collect, [] as string[])
    .option('--check-timeout <duration>', 'limit of each check (default: land.check_timeout, else 30m)', duration('--check-timeout', { min: 1_000, max: 24 * 3_600_000 }))
    .option('--push', 'push the target to its remote once the landing is done')
    .option('--forge', "land each checked branch by merging its pull request on GitHub (land.merge_method, else merge) instead of moving the target here; the local target follows")
    .addOption(new Option('--sandbox <mode>', "run the checks in a sandbox: on, off, or auto (on where it can start; default: RALPH_SANDBOX, else the plan's sandbox:, else the config's, else auto)").choices([...SANDBOX_MODES]))
    .option('--out <dir>', 'where land.json and land-report.md go (default: the batch folder, else .ralph/land/<target>)')
    .option('--json', 'print the landing report as JSON on stdout')
    .option('--config <file>', 'use this config file instead of the nearest ralph.config.yaml')
    .addHelpText('after', '\nA conflict or a failing check leaves that branch unlanded (reason and output in land-report.md) and the next one is tried.\nRun again after an interruption: it resumes where it stopped.\nExit codes: 0 all landed, 1 any unlanded (or the push failed), 64 usage error, 130 interrupted.')
    .action(async (args: string[], flags: LandFlags) => {
      const { runLand } = await import('../deliver/index.js');
      const { loadProjectConfig } = await import('../config/index.js');
      const { land, deliver, sandbox } = loadProjectConfig(process.cwd(), ctx.env, flags.config);
      const order = flags.order?.split(',').map((s) => s.trim()).filter(Boolean);
      if (flags.order !== undefined && !order?.length) throw new UsageError('--order names no plan or branch');
      if (flags.forge && flags.push) throw new UsageError('--forge merges on GitHub and --push pushes a target moved here: choose one');
      // --forge: the forge is checked before anything lands (exit 64), as --pr does before a batch.
      let forge: { opened: import('../deliver/index.js').OpenedForge; method: 'merge' | 'squash' | 'rebase' } | undefined;
      if (flags.forge) {
        const { openForge } = await import('../deliver/index.js');
        const { git } = await import('../util/git.js');
        const top = await git(process.cwd(), ['rev-parse', '--show-toplevel']).catch(() => null);
        if (!top) throw new UsageError('--forge needs a git repository, and the current folder is not in one');
        forge = { opened: await openForge(top, deliver, ctx.env, { flag: '--forge' }), method: land.mergeMethod ?? 'merge' };
      }
      const controller = new AbortController();
      const onSignal = (name: NodeJS.Signals) => {
        if (controller.signal.aborted) process.exit(EXIT_CODES.interrupted);
        ctx.stderr.write(`\nralph: ${name}: stopping the running check; the target stays where it is (run ralph land again to go on)\n`);
        controller.abort(new Error(name));
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      try {
        const outcome = await runLand(
          {
            cwd: process.cwd(),
            args,
            ...(order ? { order } : {}),
            ...((flags.target ?? land.target) ? { target: flags.target ?? land.target } : {}),
            strategy: flags.strategy ?? land.strategy ?? 'rebase',
            checks: [...(land.checks ?? []), ...flags.check],
            ...((flags.checkTimeout ?? land.checkTimeoutMs) !== undefined ? { checkTimeoutMs: flags.checkTimeout ?? land.checkTimeoutMs } : {}),
            push: flags.push === true,
            ...(deliver.remote ? { remote: deliver.remote } : {}),
            ...(flags.out ? { out: flags.out } : {}),
            ...(forge ? { forge } : {}),
            sandbox: { ...(flags.sandbox ? { flag: flags.sandbox } : {}), ...(sandbox ? { config: sandbox } : {}) },
          },
          { signal: controller.signal, env: ctx.env, onLine: (line) => void ctx.stderr.write(`land: ${line}\n`), onWarning: (line) => void ctx.stderr.write(`land: warning: ${line}\n`) },
        );
        const r = outcome.report;
        if (flags.json) ctx.stdout.write(`${JSON.stringify(r)}\n`);
        ctx.stderr.write(`land: ${r.landed.length} landed, ${r.unlanded.length} unlanded, ${r.skipped.length} skipped on ${r.target}; report: ${outcome.reportPath}\n`);
        ctx.exitCode = outcome.exitCode;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
};
