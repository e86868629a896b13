// Finding runs by the id `ralph runs` prints, for status, stop, report --run, logs and --resume:
// one resolver, so every command takes every listed id (docs/files.md#run-ids).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { RUN_FILES } from '../contract.js';
import { UsageError } from '../errors.js';
import { batchesRoot, runPaths, runsRoot, type RunPaths } from './paths.js';
import { ralphDir } from './project-root.js';
import { isRunId } from './run-id.js';

/** A run directory and the id every command knows it by. */
export interface ListedRun {
  /** A single run's id, or `<batch>/<plan run>` for a plan run of a batch under .ralph/batches/. */
  id: string;
  paths: RunPaths;
  /** Why this entry cannot be read as a run (docs/hostile.md#a-corrupted-ralph); absent when it can. */
  problem?: string;
}

const HINT = 'Use a run id from `ralph runs`, "latest", or --run-dir <dir> for a run directory elsewhere.';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;

function fsProblem(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e.code === 'ELOOP') return 'a symbolic link loop (ELOOP)';
  if (e.code === 'ENOENT') return 'a symbolic link to nothing (ENOENT)';
  if (e.code === 'ENOTDIR') return 'not a folder (ENOTDIR)';
  if (e.code === 'EACCES') return 'not readable (EACCES)';
  return `cannot be read (${e.code ?? e.message})`;
}

interface Folder {
  /** Its subfolders, newest first (run ids sort by time), each with why it cannot be read, if so. */
  entries: { name: string; problem?: string }[];
  /** Why the folder itself cannot be read (a regular file where it should be). */
  problem?: string;
}

/**
 * The subfolders of a folder of runs. Never throws: the agent can reach .ralph/, so what cannot be
 * read (a symbolic link loop, a name holding control characters, the folder itself a file) is
 * said, and the rest is listed.
 */
function subdirs(dir: string): Folder {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { entries: [] };
    let problem = fsProblem(error);
    try {
      if (!statSync(dir).isDirectory()) problem = 'not a folder';
    } catch {
      // as the error said
    }
    return { entries: [], problem };
  }
  const entries: Folder['entries'] = [];
  for (const name of names.sort().reverse()) {
    if (name.startsWith('.')) continue;
    try {
      if (!statSync(join(dir, name)).isDirectory()) continue; // a stray file is no run
    } catch (error) {
      entries.push({ name, problem: fsProblem(error) });
      continue;
    }
    entries.push(CONTROL.test(name) ? { name, problem: 'its name holds control characters (ralph never makes such a name)' } : { name });
  }
  return { entries };
}

/** The runs under `dir`, with `prefix` before their ids, and the folder itself when it cannot be read. */
function runsIn(dir: string, prefix: string, folderId: string): ListedRun[] {
  const folder = subdirs(dir);
  const out: ListedRun[] = folder.problem !== undefined ? [{ id: folderId, paths: runPaths(dir), problem: folder.problem }] : [];
  for (const e of folder.entries) out.push({ id: `${prefix}${e.name}`, paths: runPaths(join(dir, e.name)), ...(e.problem !== undefined ? { problem: e.problem } : {}) });
  return out;
}

/** Single runs under .ralph/runs that can be read, newest first. */
export function listRuns(cwd: string): RunPaths[] {
  return runsIn(runsRoot(cwd), '', RUN_FILES.runs)
    .filter((r) => r.problem === undefined)
    .map((r) => r.paths);
}

/**
 * Every run of the project: single runs, then the plan runs of batches under .ralph/batches/;
 * entries that cannot be read are listed with their problem.
 */
export function listAllRuns(cwd: string): ListedRun[] {
  const singles = runsIn(runsRoot(cwd), '', RUN_FILES.runs);
  const inBatches = runsIn(batchesRoot(cwd), '', RUN_FILES.batches).flatMap((batch) =>
    batch.problem !== undefined ? [batch] : runsIn(join(batch.paths.dir, RUN_FILES.runs), `${batch.id}/`, `${batch.id}/${RUN_FILES.runs}`),
  );
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
    const root = runsRoot(cwd);
    const singles = runsIn(root, '', RUN_FILES.runs);
    const latest = singles.find((r) => r.problem === undefined);
    if (latest) return latest.paths;
    const broken = singles.find((r) => r.paths.dir === root);
    if (broken) throw new UsageError(`no runs can be read: ${root} is ${broken.problem}`, 'Move it aside; the next `ralph exec` makes the folder anew.');
    throw new UsageError(`no runs in ${root}`, 'Start one with `ralph exec plan.md`.');
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
