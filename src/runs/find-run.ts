// Finding runs by the id `ralph runs` prints, for status, stop, report --run, logs and --resume:
// one resolver, so every command takes every listed id (docs/files.md#run-ids).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RUN_FILES } from '../contract.js';
import { UsageError } from '../errors.js';
import { runPaths, runsRoot, type RunPaths } from './paths.js';
import { ralphDir } from './project-root.js';
import { isRunId } from './run-id.js';

/** A run directory and the id every command knows it by. */
export interface ListedRun {
  /** A single run's id, or `<batch>/<plan run>` for a plan run of a batch under .ralph/batches/. */
  id: string;
  paths: RunPaths;
}

const HINT = 'Use a run id from `ralph runs`, "latest", or --run-dir <dir> for a run directory elsewhere.';

function subdirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => {
      if (name.startsWith('.')) return false;
      try {
        return statSync(join(dir, name)).isDirectory();
      } catch {
        return false; // gone meanwhile, or unreadable: not a run to list
      }
    })
    .sort()
    .reverse();
}

/** Single runs under .ralph/runs, newest first (run ids sort by time). */
export function listRuns(cwd: string): RunPaths[] {
  const root = runsRoot(cwd);
  return subdirs(root).map((name) => runPaths(join(root, name)));
}

/** Every run of the project: single runs, then the plan runs of batches under .ralph/batches/. */
export function listAllRuns(cwd: string): ListedRun[] {
  const singles = listRuns(cwd).map((paths) => ({ id: paths.dir.split('/').pop()!, paths }));
  const batches = join(ralphDir(cwd), 'batches');
  const inBatches = subdirs(batches).flatMap((batch) => {
    const runs = join(batches, batch, RUN_FILES.runs);
    return subdirs(runs).map((name) => ({ id: `${batch}/${name}`, paths: runPaths(join(runs, name)) }));
  });
  return [...singles, ...inBatches];
}

function shownRef(ref: string): string {
  return ref.slice(0, 80).replace(/[^\x20-\x7e]/g, '?');
}

/**
 * `ref` is "latest", a run id, `<batch>/<plan run>`, or a batch's plan run by its own name when
 * one batch alone has it; a run directory elsewhere is named with --run-dir.
 */
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
  const parts = ref.split('/');
  if (parts.length > 2 || !parts.every(isRunId)) {
    throw new UsageError(`"${shownRef(ref)}" is not a run id: a run id is a folder name under ${runsRoot(cwd)} (letters, digits, ".", "_", "-"), or <batch>/<plan> as \`ralph runs\` lists it`, HINT);
  }
  const all = listAllRuns(cwd);
  const exact = all.find((r) => r.id === ref);
  if (exact) return exact.paths;
  const byName = parts.length === 1 ? all.filter((r) => r.id.endsWith(`/${ref}`)) : [];
  if (byName.length === 1) return byName[0]!.paths;
  if (byName.length > 1) {
    throw new UsageError(`"${ref}" names a plan run in ${byName.length} batches: ${byName.map((r) => r.id).join(', ')}`, 'Give the one you mean as <batch>/<plan>, as `ralph runs` lists it.');
  }
  throw new UsageError(`no run "${shownRef(ref)}" in ${ralphDir(cwd)}`, HINT);
}
