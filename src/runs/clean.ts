// `ralph clean` (docs/files.md#what-grows-and-ralph-clean): what ralph leaves behind, removed when
// it is finished and, with --older-than, old enough. Never a running (or resumable) run's files,
// never a batch that has not ended, never a branch with commits HEAD does not have.
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BATCH_FILE } from '../batch/batch-file.js';
import { tryGit } from '../util/git.js';
import { formatDuration } from '../util/duration.js';
import { readChecked, type Shape } from './checked-json.js';
import { listRuns } from './find-run.js';
import { batchesRoot } from './paths.js';
import { findProjectRoot } from './project-root.js';
import { viewRun } from './run-view.js';

export interface CleanOptions {
  cwd: string;
  /** Only what ended at least this long ago. */
  olderThanMs?: number;
  /** Say what would be removed, remove nothing. */
  dryRun: boolean;
  now?: number;
}

export interface CleanItem {
  /** checkout: a worker's (`ralph clean --workdir`, src/queue/clean-workdir.ts). */
  kind: 'run' | 'batch' | 'branch' | 'checkout';
  name: string;
  why: string;
}

export interface CleanReport {
  removed: CleanItem[];
  kept: CleanItem[];
}

export function subdirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .map((d) => d.name)
    .sort();
}

export function mtimeMs(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

interface BatchRecord {
  status: string;
  updatedAt?: string;
  repo?: string | null;
  batchId: string;
}

// The fields clean relies on (batch-file.ts BatchFile); the file is within an agent's reach.
const BATCH_SHAPE: Shape = { batchId: ['string'], status: ['string'], updatedAt: ['string', 'undefined'], repo: ['string', 'null', 'undefined'] };

/** The batch's record, or why it cannot be used. */
function readBatch(dir: string): { batch: BatchRecord } | { problem: string } {
  const read = readChecked<BatchRecord>(join(dir, BATCH_FILE), BATCH_SHAPE, 64 * 1024 * 1024);
  if ('value' in read) return { batch: read.value };
  return { problem: 'absent' in read ? `${BATCH_FILE}: missing` : read.problem };
}

/** What a clean shares, in the project or in a worker's folder: the age test and the report. */
export function cleaner(o: Pick<CleanOptions, 'olderThanMs' | 'dryRun' | 'now'>) {
  const now = o.now ?? Date.now();
  const report: CleanReport = { removed: [], kept: [] };
  return {
    now,
    report,
    oldEnough: (endedAtMs: number) => o.olderThanMs === undefined || now - endedAtMs >= o.olderThanMs,
    ago: (atMs: number) => `${formatDuration(Math.max(0, now - atMs))} ago`,
    remove(item: CleanItem, path: string) {
      if (!o.dryRun) rmSync(path, { recursive: true, force: true });
      report.removed.push(item);
    },
    keep(item: CleanItem) {
      report.kept.push(item);
    },
  };
}

export async function clean(o: CleanOptions): Promise<CleanReport> {
  const c = cleaner(o);
  const { now, report, oldEnough, remove } = c;
  const age = (endedAtMs: number) => `ended ${c.ago(endedAtMs)}`;

  for (const paths of listRuns(o.cwd)) {
    const v = viewRun(paths, now);
    const name = paths.dir.split('/').pop()!;
    if (v.health === 'running' || v.health === 'stale' || v.health === 'dead') {
      report.kept.push({ kind: 'run', name, why: v.health === 'dead' ? 'dead: no result, it can be resumed' : v.health });
      continue;
    }
    // Its files cannot be believed, so neither can its "ended": it may be running still.
    if (v.health === 'unreadable') {
      report.kept.push({ kind: 'run', name, why: `unreadable (${v.why}): remove it by hand once it is not running` });
      continue;
    }
    const endedAt = Date.parse(v.result?.endedAt ?? '') || mtimeMs(paths.dir);
    if (!oldEnough(endedAt)) report.kept.push({ kind: 'run', name, why: `${v.health}, ${age(endedAt)}` });
    else remove({ kind: 'run', name, why: `${v.health}, ${age(endedAt)}` }, paths.dir);
  }

  const root = findProjectRoot(o.cwd);
  const batches = batchesRoot(o.cwd);
  const unfinished = new Set<string>();
  for (const name of subdirs(batches)) {
    const dir = join(batches, name);
    const read = readBatch(dir);
    if ('problem' in read) {
      // Its id is the folder's name unless batch.json said otherwise: its branches are kept too.
      unfinished.add(name);
      report.kept.push({ kind: 'batch', name, why: `unreadable (${read.problem}): remove it by hand once it is not running` });
      continue;
    }
    const { batch } = read;
    const batchId = batch.batchId;
    if (batch.status !== 'done') {
      unfinished.add(batchId);
      report.kept.push({ kind: 'batch', name, why: `${batch.status}: it can be resumed` });
      continue;
    }
    const endedAt = Date.parse(batch.updatedAt ?? '') || mtimeMs(dir);
    if (!oldEnough(endedAt)) {
      unfinished.add(batchId);
      report.kept.push({ kind: 'batch', name, why: `done, ${age(endedAt)}` });
      continue;
    }
    // Its worktrees are git's too: removed through git, so the repository forgets them.
    if (!o.dryRun && batch.repo) {
      for (const plan of subdirs(join(dir, 'worktrees'))) await tryGit(batch.repo, ['worktree', 'remove', '--force', join(dir, 'worktrees', plan)]);
    }
    remove({ kind: 'batch', name, why: `done, ${age(endedAt)}` }, dir);
  }
  if (!o.dryRun) await tryGit(root, ['worktree', 'prune']);

  const refs = await tryGit(root, ['for-each-ref', '--format=%(refname:short) %(committerdate:unix)', 'refs/heads/ralph/']);
  for (const line of (refs ?? '').split('\n').filter(Boolean)) {
    const [branch, when] = line.split(' ') as [string, string];
    const batchId = branch.split('/')[1] ?? '';
    const tipMs = Number(when) * 1000;
    if (unfinished.has(batchId)) {
      report.kept.push({ kind: 'branch', name: branch, why: 'its batch is kept' });
      continue;
    }
    // Merged, or never given a commit of its own: HEAD has every commit of it.
    const merged = (await tryGit(root, ['merge-base', '--is-ancestor', branch, 'HEAD'])) !== null;
    if (!merged) {
      report.kept.push({ kind: 'branch', name: branch, why: 'has commits HEAD does not have' });
      continue;
    }
    if (!oldEnough(tipMs)) {
      report.kept.push({ kind: 'branch', name: branch, why: `merged, last commit ${formatDuration(Math.max(0, now - tipMs))} ago` });
      continue;
    }
    if (o.dryRun || (await tryGit(root, ['branch', '-d', branch])) !== null) report.removed.push({ kind: 'branch', name: branch, why: 'merged or empty' });
    else report.kept.push({ kind: 'branch', name: branch, why: 'git would not delete it (checked out in a worktree?)' });
  }
  return report;
}

