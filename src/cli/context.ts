import type { Command } from 'commander';

/** What a command needs from the entry point: where to write, and how to report its exit code. */
export interface CliContext {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Set by a command's action; main() returns it. */
  exitCode: number;
  /** --debug: internal errors keep their stack traces. */
  debug: boolean;
  /** Everything after the first `--`: the agent command of exec and batch. */
  passThrough: string[];
  env: NodeJS.ProcessEnv;
}

export type RegisterCommand = (program: Command, ctx: CliContext) => void;
