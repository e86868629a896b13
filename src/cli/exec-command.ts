// `ralph exec`: options in, one run, an exit code out. The only place that owns process signals
// for a single run: the first Ctrl+C stops the executor and saves the state, a second one writes
// the result at once and leaves.
import { runPlan } from '../loop/index.js';
import { colorWanted, createRenderer } from '../ui/index.js';
import type { ExecFlags } from './commands/exec.js';
import type { CliContext } from './context.js';
import { execOptionsFrom } from './exec-options.js';
import { EXIT_CODES } from '../contract.js';

export async function execCommand(planPath: string, flags: ExecFlags, ctx: CliContext): Promise<number> {
  const options = { planPath, ...execOptionsFrom(flags, ctx.passThrough, process.cwd()) };
  const renderer = createRenderer({
    stdout: ctx.stdout,
    stderr: ctx.stderr,
    json: flags.json === true,
    quiet: flags.quiet === true,
    color: colorWanted(ctx.env),
  });
  const controller = new AbortController();
  let emergency: (() => void) | undefined;
  let interrupts = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    if (interrupts === 1) {
      renderer.note(`ralph: ${signal} received: stopping the executor and saving the run (press Ctrl+C again to stop at once)`);
      controller.abort();
      return;
    }
    try {
      emergency?.();
    } finally {
      process.exit(EXIT_CODES.interrupted);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const result = await runPlan(options, {
      signal: controller.signal,
      onEvent: (e) => renderer.onEvent(e),
      wantOutput: !flags.quiet,
      onEmergencyExit: (write) => {
        emergency = write;
      },
    });
    return result.exitCode;
  } finally {
    renderer.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
