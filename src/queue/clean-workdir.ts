// `ralph clean --workdir DIR` (docs/files.md#a-workers-folder): a worker's old run directories,
// and its checkouts while no worker runs there. Never what a live worker holds: while one holds
// the workdir's lock its checkouts and any run without a result stay, and when none does this
// clean takes the lock itself, so no worker starts on the folder while it removes. Never a
// checkout with commits its remote does not have (a push that failed).
import { existsSync, rmdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { cleaner, mtimeMs, subdirs, type CleanReport } from '../runs/clean.js';
import { runPaths } from '../runs/paths.js';
import { viewRun } from '../runs/run-view.js';
import { git } from '../util/git.js';
import { defaultWorkdir, isWorkdir, WORKDIR_PARTS } from './workdir-layout.js';
import { liveHolder, lockWorkdir, type Holder } from './workdir-lock.js';

export interface CleanWorkdirOptions {
  workdir: string;
  olderThanMs?: number;
  dryRun: boolean;
  now?: number;
}

/**
 * After its run ends a worker still commits, pushes (each git call on the clone bounded by 10
 * minutes, and waiting for the others) and then reads the run's findings for its report: an ended
 * run of the worker holding the folder stays this long after its end.
 */
export const REPORTING_MS = 60 * 60_000;

const holderText = (h: Holder) => `the worker running there (pid ${h.pid} on ${h.host})`;

/** An empty folder goes; one that is not (a worker just wrote into it) stays, without a race. */
function removeIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty, or gone
  }
}

/** When the checkout last changed: its index moves with every checkout and commit. */
async function checkoutTouchedMs(path: string): Promise<number> {
  try {
    const gitDir = await git(path, ['rev-parse', '--absolute-git-dir']);
    return statSync(join(gitDir, 'index')).mtimeMs;
  } catch {
    return mtimeMs(path);
  }
}

/** Commits of the checkout that no remote-tracking branch has: work a failed push left only here. */
async function unpushed(path: string): Promise<number | string> {
  try {
    return Number(await git(path, ['rev-list', '--count', 'HEAD', '--not', '--remotes']));
  } catch (error) {
    return (error as Error).message;
  }
}

export async function cleanWorkdir(o: CleanWorkdirOptions): Promise<CleanReport> {
  const workdir = o.workdir;
  if (!existsSync(workdir)) throw new UsageError(`no worker folder at ${workdir}`, `give the --workdir the worker was started with (default ${defaultWorkdir()})`);
  if (!isWorkdir(workdir)) {
    throw new UsageError(`${workdir} is not a worker's folder (it has no repos/, checkouts/ or worker.lock)`, `give the --workdir the worker was started with (default ${defaultWorkdir()})`);
  }
  const c = cleaner(o);
  let holder = liveHolder(workdir);
  let release: (() => void) | undefined;
  if (!holder && !o.dryRun) {
    try {
      release = lockWorkdir(workdir);
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      // A worker started just now.
      holder = liveHolder(workdir) ?? { pid: 0, host: 'unknown' };
    }
  }
  try {
    cleanRuns(o, c, holder);
    await cleanCheckouts(o, c, holder);
  } finally {
    release?.();
  }
  return c.report;
}

function cleanRuns(o: CleanWorkdirOptions, c: ReturnType<typeof cleaner>, holder: Holder | null): void {
  const runs = join(o.workdir, WORKDIR_PARTS.runs);
  for (const batch of subdirs(runs)) {
    for (const name of subdirs(join(runs, batch))) {
      const paths = runPaths(join(runs, batch, name));
      const item = (why: string) => ({ kind: 'run' as const, name: `${batch}/${name}`, why });
      const v = viewRun(paths, c.now);
      if (v.health === 'running' || v.health === 'stale') {
        c.keep(item(`${v.health}: ${v.why}`));
        continue;
      }
      if (v.health === 'unreadable') {
        c.keep(item(`unreadable (${v.why}): remove it by hand once it is not running`));
        continue;
      }
      if (v.health === 'dead') {
        // A run of a live worker may be a moment from writing its first file.
        if (holder) {
          c.keep(item(`no result, and ${holderText(holder)} may be running it`));
          continue;
        }
        const at = Date.parse(v.lastEventAt ?? '') || mtimeMs(paths.dir);
        const why = `no result: its worker stopped (a retry runs in a folder of its own), last event ${c.ago(at)}`;
        if (c.oldEnough(at)) c.remove(item(why), paths.dir);
        else c.keep(item(why));
        continue;
      }
      const endedAt = Date.parse(v.result?.endedAt ?? '') || mtimeMs(paths.dir);
      const why = `${v.health}, ended ${c.ago(endedAt)}`;
      if (holder && v.state?.pid === holder.pid && c.now - endedAt < REPORTING_MS) c.keep(item(`${why}; ${holderText(holder)} may still be pushing and reporting it`));
      else if (c.oldEnough(endedAt)) c.remove(item(why), paths.dir);
      else c.keep(item(why));
    }
    // Only while this clean holds the lock: a live worker may be making a run folder in it.
    if (!o.dryRun && !holder) removeIfEmpty(join(runs, batch));
  }
}

async function cleanCheckouts(o: CleanWorkdirOptions, c: ReturnType<typeof cleaner>, holder: Holder | null): Promise<void> {
  const checkouts = join(o.workdir, WORKDIR_PARTS.checkouts);
  for (const clone of subdirs(checkouts)) {
    let removed = 0;
    for (const n of subdirs(join(checkouts, clone))) {
      const path = join(checkouts, clone, n);
      const item = (why: string) => ({ kind: 'checkout' as const, name: `${WORKDIR_PARTS.checkouts}/${clone}/${n}`, why });
      if (holder) {
        c.keep(item(`held by ${holderText(holder)}`));
        continue;
      }
      const ahead = await unpushed(path);
      if (typeof ahead === 'string') {
        c.keep(item(`git cannot read it (${ahead}): remove it by hand`));
        continue;
      }
      if (ahead > 0) {
        c.keep(item(`${ahead} commit(s) its remote does not have: push them (git -C ${path} push origin HEAD) or copy them first`));
        continue;
      }
      const at = await checkoutTouchedMs(path);
      const why = `everything pushed, last used ${c.ago(at)}; the worker makes it again when it needs it`;
      if (!c.oldEnough(at)) {
        c.keep(item(why));
        continue;
      }
      c.remove(item(why), path);
      removed++;
    }
    if (removed > 0 && !o.dryRun) {
      // The clone forgets the worktrees whose folders went.
      await git(join(o.workdir, WORKDIR_PARTS.repos, `${clone}.git`), ['worktree', 'prune']).catch(() => undefined);
      removeIfEmpty(join(checkouts, clone));
    }
  }
}
