import { Command, CommanderError } from 'commander';
import { join } from 'node:path';
import { EXIT_CODES } from '../contract.js';
import { RalphError } from '../errors.js';
import { stripControl } from '../ui/sanitize.js';
import { holdCredentials } from '../util/credentials.js';
import { packageRoot, packageVersion } from '../util/package-root.js';
import type { CliContext, RegisterCommand } from './context.js';
import { registerExec } from './exec.js';
import { registerParse } from './parse.js';
import { registerStatus } from './status.js';
import { registerStop } from './stop.js';
import { registerValidate } from './validate.js';
import { registerReport } from './report.js';
import { registerBatch } from './batch.js';
import { registerConfig } from './config.js';
import { registerWorker } from './worker.js';
import { registerInit } from './init.js';
import { registerRuns } from './runs.js';
import { registerServe } from './serve.js';
import { registerLogs } from './logs.js';
import { bareFlagsExplicit } from './pr-flag.js';
import { registerLand } from './land.js';
import { registerSandbox } from './sandbox.js';
import { registerClean } from './clean.js';

const COMMANDS: RegisterCommand[] = [
  registerInit,
  registerExec,
  registerStatus,
  registerRuns,
  registerStop,
  registerClean,
  registerParse,
  registerValidate,
  registerReport,
  registerBatch,
  registerConfig,
  registerWorker,
  registerServe,
  registerLogs,
  registerLand,
  registerSandbox,
];

export async function main(
  argv: string[],
  io: Pick<CliContext, 'stdout' | 'stderr'> = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  if (io.stdout === process.stdout) {
    ignoreClosedStdout();
    // Out of ralph's environment before anything starts a process (docs/hostile.md "The API key").
    holdCredentials();
  }
  // What follows `--` is the agent's command line: commander never sees it.
  const dashes = argv.indexOf('--');
  const passThrough = dashes === -1 ? [] : argv.slice(dashes + 1);
  const own = bareFlagsExplicit(dashes === -1 ? argv : argv.slice(0, dashes));
  const ctx: CliContext = { ...io, exitCode: 0, debug: own.includes('--debug'), passThrough, env: process.env };
  const program = new Command('ralph')
    .description('Runs AI coding agents through plans until they are really done.')
    .version(packageVersion(), '-V, --version')
    .option('--debug', 'show stack traces for internal errors')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => void io.stdout.write(s),
      writeErr: (s) => void io.stderr.write(s),
      outputError: (s, write) => write(`ralph: ${s.replace(/^error: /, '')}`),
    });
  // The docs/ this help and the config file refer to ship with the package: say where they are.
  program.addHelpText('after', () => `\nExit codes: 0 complete, 1 failed, 2 blocked, 3 exhausted, 4 off the rails, 64 usage error, 130 interrupted.\nDocumentation (the docs/… pages named in help and in ralph.config.yaml): ${join(packageRoot(), 'docs')}`);
  for (const register of COMMANDS) register(program, ctx);

  try {
    await program.parseAsync(own, { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    const sub = program.commands.find((c) => own.includes(c.name()))?.name();
    return handleError(error, ctx, sub ? `ralph ${sub} --help` : 'ralph --help');
  }
}

/**
 * `ralph report | head`: the reader goes away. Output is dropped from then on instead of
 * crashing; a command that runs an agent must still finish and write its result.
 */
function ignoreClosedStdout(): void {
  // A reader that went away (EPIPE), or a pipe the kernel could not buffer (ENOBUFS, EAGAIN):
  // display output is lost, the run goes on (docs/hostile.md "Slow readers").
  const ignorable = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ENOBUFS', 'EAGAIN', 'ECONNRESET']);
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== undefined && ignorable.has(error.code)) return;
      throw error;
    });
  }
}

function handleError(error: unknown, ctx: CliContext, help: string): number {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) return 0; // --help, --version
    ctx.stderr.write(`(see '${help}')\n`);
    return EXIT_CODES.usage;
  }
  // A message can quote a file (a config key, a plan's value, a path): only text reaches the terminal.
  if (error instanceof RalphError) {
    ctx.stderr.write(`ralph: ${stripControl(error.message)}\n`);
    if (error.hint) ctx.stderr.write(`${stripControl(error.hint)}\n`);
    return error.exitCode;
  }
  const e = error instanceof Error ? error : new Error(String(error));
  ctx.stderr.write(
    stripControl(ctx.debug ? `ralph: internal error: ${e.stack}\n` : `ralph: internal error: ${e.message} (run with --debug for details)\n`),
  );
  return 70;
}
