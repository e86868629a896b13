// Expected failures the user can cause are a class apart from bugs: only the CLI entry point
// turns them into exit codes and one-line messages; anything else is a bug and keeps its stack.

export class RalphError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly hint?: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** Bad flags, bad arguments, an invalid plan: nothing ran (exit 64). */
export class UsageError extends RalphError {
  constructor(message: string, hint?: string) {
    super(message, 64, hint);
  }
}

/** One problem found in a user's file, with where it is and what to do about it. */
export interface Problem {
  file: string;
  line?: number;
  message: string;
}

export function formatProblem(p: Problem): string {
  return `${p.file}${p.line !== undefined ? `:${p.line}` : ''}: ${p.message}`;
}

export class InvalidInputError extends UsageError {
  constructor(
    readonly problems: Problem[],
    what = 'invalid input',
  ) {
    super(`${what}:\n${problems.map((p) => `  ${formatProblem(p)}`).join('\n')}`);
  }
}
