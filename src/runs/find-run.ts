// Finding a run directory by id or as the latest one, for --resume, status and stop.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { runPaths, runsRoot, type RunPaths } from './paths.js';
import { isRunId } from './run-id.js';

/** Run directories under .ralph/runs, newest first (run ids sort by time). */
export function listRuns(cwd: string): RunPaths[] {
  const root = runsRoot(cwd);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((name) => !name.startsWith('.') && statSync(join(root, name)).isDirectory())
    .sort()
    .reverse()
    .map((name) => runPaths(join(root, name)));
}

/** `ref` is a run id or "latest"; a run directory elsewhere is named with --run-dir. */
export function findRun(cwd: string, ref: string | undefined, runDir?: string): RunPaths {
  if (runDir !== undefined) {
    const paths = runPaths(resolve(runDir));
    if (!existsSync(paths.dir)) throw new UsageError(`no run directory at ${paths.dir}`);
    return paths;
  }
  if (ref === undefined || ref === 'latest') {
    const latest = listRuns(cwd)[0];
    if (!latest) throw new UsageError(`no runs in ${runsRoot(cwd)}`, 'Start one with `ralph exec plan.md`.');
    return latest;
  }
  if (!isRunId(ref)) {
    throw new UsageError(
      `"${ref.slice(0, 80).replace(/[^\x20-\x7e]/g, '?')}" is not a run id: a run id is a folder name under ${runsRoot(cwd)} (letters, digits, ".", "_", "-")`,
      'Use a run id from `ralph status`, "latest", or --run-dir <dir> for a run directory elsewhere.',
    );
  }
  const byId = runPaths(join(runsRoot(cwd), ref));
  if (existsSync(byId.dir)) return byId;
  throw new UsageError(`no run "${ref}" in ${runsRoot(cwd)}`, 'Use a run id from .ralph/runs/, or "latest".');
}
