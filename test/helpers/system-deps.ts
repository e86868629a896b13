// Tests that need a program from the system (a browser, redis-server) find it through an
// environment variable or PATH. Where it is missing they skip, and say so loudly with the
// install hint; under .ci/run (RALPH_REQUIRE_SYSTEM_DEPS=1) a missing program fails instead.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';

export const systemDepsRequired = process.env.RALPH_REQUIRE_SYSTEM_DEPS === '1';

/** The first executable named by `envVar`, else the first of `names` found on PATH. */
export function findProgram(envVar: string, names: string[]): string | undefined {
  const fromEnv = process.env[envVar];
  if (fromEnv) return isExecutable(fromEnv) ? fromEnv : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    for (const name of names) {
      const candidate = join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return undefined;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * Decides whether a suite that needs `what` runs. Returns true when it may run; otherwise prints
 * a banner naming what is missing and how to install it, and returns false (skip), unless the
 * environment requires system packages, where it throws so the suite fails.
 */
export function systemDepAvailable(what: string, problem: string | undefined, hint: string): boolean {
  if (problem === undefined) return true;
  const message = `${what} unavailable: ${problem}. ${hint}`;
  if (systemDepsRequired) throw new Error(`${message} (RALPH_REQUIRE_SYSTEM_DEPS=1: a missing system package is a failure here)`);
  const line = '!'.repeat(78);
  process.stderr.write(`\n${line}\n!! SKIPPED: ${message}\n${line}\n\n`);
  return false;
}
