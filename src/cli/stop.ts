import type { RegisterCommand } from './context.js';

export const registerStop: RegisterCommand = (program, ctx) => {
  program
    .command('stop')
    .description('ask a running run to stop after its current iteration (it can be resumed with --resume)')
    .argument('[run]', 'a run id as `ralph runs` lists it, or latest', 'latest')
    .option('--cwd <dir>', "a folder of the project whose .ralph/ to look in (default: the current directory; .ralph/ is at the project's root)")
    .option('--run-dir <dir>', 'a run directory to address directly')
    .action(async (run: string, flags: { cwd?: string; runDir?: string }) => {
      const { writeFileSync } = await import('node:fs');
      const { findRun } = await import('../runs/find-run.js');
      const { viewRun } = await import('../runs/run-view.js');
      const paths = findRun(flags.cwd ?? process.cwd(), run, flags.runDir);
      const view = viewRun(paths);
      if (view.health !== 'running' && view.health !== 'stale') {
        ctx.stdout.write(`run ${view.runId} is not running (${view.health}): nothing to stop\n`);
        return;
      }
      try {
        writeFileSync(paths.stopRequest, `stop requested at ${new Date().toISOString()}\n`);
      } catch (error) {
        const { UsageError } = await import('../errors.js');
        throw new UsageError(`cannot write the stop request ${paths.stopRequest}: ${(error as Error).message}`, 'Remove whatever is in its place, or stop the run with Ctrl+C / SIGTERM.');
      }
      ctx.stdout.write(`asked run ${view.runId} to stop after its current iteration (${paths.stopRequest})\n`);
    });
};
