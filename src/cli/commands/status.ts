import type { RegisterCommand } from '../context.js';

export const registerStatus: RegisterCommand = (program, ctx) => {
  program
    .command('status')
    .description("a run's state, iteration, limits left, cost, signal files present, and health (running, stale, dead, or its outcome)")
    .argument('[run]', 'a run id, or latest', 'latest')
    .option('--cwd <dir>', 'working directory whose .ralph/runs to look in (default: the current directory)')
    .option('--run-dir <dir>', 'a run directory to read directly')
    .option('--json', 'print the status as one JSON object')
    .action(async (run: string, flags: { cwd?: string; runDir?: string; json?: boolean }) => {
      const { statusCommand } = await import('../status-command.js');
      ctx.exitCode = statusCommand(run, flags, ctx);
    });
};
