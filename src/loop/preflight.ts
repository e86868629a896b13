// Everything about the working directory and the run directory that would make a run fail half
// way is checked before anything runs (docs/hostile.md "Before anything runs"): each is a usage
// error (exit 64) that says what is wrong and what to do, never an "internal error".
import { accessSync, constants, lstatSync, realpathSync, statSync, type Stats } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { RUN_FILES, STALE_SIGNAL_FILES } from '../contract.js';
import { UsageError } from '../errors.js';
import { ralphDir as projectRalphDir } from '../runs/project-root.js';
import { kindOf } from '../util/read-regular-file.js';

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The nearest folder of `path` that exists (the one a `mkdir -p` would start from). */
function nearestExisting(path: string): string {
  let p = path;
  while (statOrUndefined(p) === undefined && dirname(p) !== p) p = dirname(p);
  return p;
}

/** Why a file cannot be created at `path`, or undefined when it can (as far as can be told). */
function cannotCreate(path: string): string | undefined {
  const base = nearestExisting(dirname(path));
  const info = statOrUndefined(base);
  if (!info) return `no folder on the way to it exists`;
  if (!info.isDirectory()) return `${base} is ${kindOf(info)}, not a folder`;
  let real = base;
  try {
    real = realpathSync(base);
  } catch {
    // keep the path as given
  }
  // /dev/fd/63 (a plan given as <(…)) and /proc are no place for a file.
  if (real === '/proc' || real.startsWith(`/proc${sep}`) || real === '/dev' || real.startsWith(`/dev${sep}`)) return `${base} is a system folder (${real})`;
  try {
    accessSync(base, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'EROFS' ? `${base} is on a read-only file system` : `${base} is not writable (${code ?? 'error'})`;
  }
  return undefined;
}

export interface PreflightInput {
  cwd: string;
  /** The run directory this run will use. */
  runDir: string;
  /** --run-dir was given (it is named in messages). */
  runDirGiven: boolean;
  summaryPath: string;
  requireSummary: boolean;
  /** true for a new run: stale signal files will be removed. */
  fresh: boolean;
}

/** Throws a UsageError for the first thing that would make the run fail on the way. */
export function preflight(input: PreflightInput): void {
  const ralphDir = projectRalphDir(input.cwd);
  const ralph = lstatOrUndefined(ralphDir);
  if (ralph && !statOrUndefined(ralphDir)?.isDirectory()) {
    throw new UsageError(`${ralphDir} is ${kindOf(ralph)}, not a folder: ralph keeps its runs there`, `Move it away (e.g. mv ${ralphDir} ${ralphDir}.bak) and run again.`);
  }
  const run = statOrUndefined(input.runDir);
  if (run && !run.isDirectory()) {
    const what = input.runDirGiven ? `--run-dir ${input.runDir}` : `the run directory ${input.runDir}`;
    throw new UsageError(`${what} is ${kindOf(run)}, not a folder`, 'Give --run-dir a folder (it is created when missing).');
  }
  const why = run ? (() => {
    try {
      accessSync(input.runDir, constants.W_OK);
      return undefined;
    } catch (error) {
      return `it is not writable (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
    }
  })() : cannotCreate(join(input.runDir, RUN_FILES.status));
  if (why !== undefined) {
    throw new UsageError(`cannot write the run directory ${input.runDir}: ${why}`, 'Make it writable, or choose another with --run-dir.');
  }
  const stop = lstatOrUndefined(join(ralphDir, RUN_FILES.stopRequest));
  if (stop && !stop.isFile()) {
    throw new UsageError(`${join(ralphDir, RUN_FILES.stopRequest)} is ${kindOf(stop)}: a stop request is a plain file`, `Remove it (rm -r ${join(ralphDir, RUN_FILES.stopRequest)}) and run again.`);
  }
  if (input.fresh) {
    for (const name of STALE_SIGNAL_FILES) {
      const path = join(input.cwd, name);
      const info = lstatOrUndefined(path);
      if (info && !info.isFile() && !info.isSymbolicLink()) {
        throw new UsageError(
          `${name} in the working directory is ${kindOf(info)}: ralph removes stale signal files before a run, but not ${kindOf(info)}`,
          `Remove it yourself (rm -r ${path}) and run again.`,
        );
      }
    }
  }
  const summary = statOrUndefined(input.summaryPath);
  const shown = relative(input.cwd, input.summaryPath) || input.summaryPath;
  if (summary && !summary.isFile()) {
    throw new UsageError(`the summary path ${shown} is ${kindOf(summary)}, not a file: no completion could ever be accepted`, 'Name a file with --summary (or summary: in the plan).');
  }
  if (!summary && input.requireSummary) {
    const cannot = cannotCreate(input.summaryPath);
    if (cannot !== undefined) {
      throw new UsageError(
        `the summary file ${input.summaryPath} cannot be written: ${cannot}; no completion could ever be accepted`,
        'Name a writable file with --summary (a plan given as <(…) has no folder of its own: save it to a file).',
      );
    }
  }
}
