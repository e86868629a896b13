// `ralph logs <run> [--follow]`: a run's transcript as the page shows it (docs/serve.md): the
// agent's words as they are, tool calls as `▸ Name(summary)`, other output indented, ralph's
// notes in brackets; control sequences removed. With --follow it goes on printing until the run
// ends (or Ctrl+C).
import type { RegisterCommand } from './context.js';
import { positiveInt } from './exec-options.js';

interface LogsFlags {
  cwd?: string;
  runDir?: string;
  iteration?: number;
  follow?: boolean;
}

export const registerLogs: RegisterCommand = (program, ctx) => {
  program
    .command('logs')
    .description("a run's transcript: the agent's words, its tool calls, other output apart")
    .argument('[run]', 'a run id, or latest', 'latest')
    .option('--cwd <dir>', "a folder of the project whose runs to look in (default: the current directory; .ralph/ is at the project's root)")
    .option('--run-dir <dir>', 'a run directory to read directly (a batch plan\'s: .ralph/batches/<batch>/runs/<plan>)')
    .option('--iteration <n>', 'only this iteration', positiveInt('--iteration'))
    .option('-f, --follow', 'keep printing as the run goes on, until it ends')
    .action(async (run: string, flags: LogsFlags) => {
      const { findRun } = await import('../runs/find-run.js');
      const { printLogs } = await import('../serve/print-logs.js');
      const paths = findRun(flags.cwd ?? process.cwd(), run, flags.runDir);
      await printLogs(paths, { iteration: flags.iteration, follow: flags.follow === true }, (s) => void ctx.stdout.write(s));
    });
};
