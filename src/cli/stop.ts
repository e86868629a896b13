import type { RegisterCommand } from './context.js';

export const registerStop: RegisterCommand = (program, ctx) => {
  program
    .command('stop')
    .description('ask a running run to stop after its current iteration (it can be resumed with --resume)')
    .argument('[run]', 'a run id as `ralph runs` lists it, or latest', 'latest')
    .option('--cwd <dir>', "a folder of the project whose .ralph/ to look in (default: the current directory; .ralph/ is at the project's root)")
    .option('--run-dir <dir>', 'a run directory to address directly')
    .action(async (run: string, flags: { cwd?: string; runDir?: string }) => {
      const { findRun } = await import('../runs/find-run.js');
      const { requestStop } = await import('../runs/stop-request.js');
      const answer = requestStop(findRun(flags.cwd ?? process.cwd(), run, flags.runDir));
      ctx.stdout.write(
        answer.asked
          ? `asked run ${answer.runId} to stop after its current iteration (${answer.file})\n`
          : `run ${answer.runId} is not running (${answer.health}): nothing to stop\n`,
      );
    });
};
