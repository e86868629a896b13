// `ralph clean` (docs/files.md#what-grows-and-ralph-clean): what ralph leaves behind, removed when
// it is finished and, with --older-than, old enough. Never a running (or resumable) run's files,
// never a batch that has not ended, never a branch with commits HEAD does not have.
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../util/git.js';
import { formatDuration } from '../util/duration.js';
import { listRuns } from './find-run.js';
import { findProjectRoot, ralphDir } from './project-root.js';
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
  kind: 'run' | 'batch' | 'branch';
  name: string;
  why: string;
}

export interface CleanReport {
  removed: CleanItem[];
  kept: CleanItem[];
}

function subdirs(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !d.name.startsWith('.'))
    .map((d) => d.name)
    .sort();
}

function mtimeMs(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

interface BatchRecord {
  status?: string;
  updatedAt?: string;
  repo?: string | null;
  batchId?: string;
}

function readBatch(dir: string): BatchRecord | null {
  try {
    return JSON.parse(readFileSync(join(dir, 'batch.json'), 'utf8')) as BatchRecord;
  } catch {
    return null;
  }
}

async function gitOrNull(cwd: string, args: string[]): Promise<string | null> {
  try {
    return await git(cwd, args);
  } catch {
    return null;
  }
}

export async function clean(o: CleanOptions): Promise<CleanReport> {
  const now = o.now ?? Date.now();
  const report: CleanReport = { removed: [], kept: [] };
  const oldEnough = (endedAtMs: number) => o.olderThanMs === undefined || now - endedAtMs >= o.olderThanMs;
  const age = (endedAtMs: number) => `ended ${formatDuration(Math.max(0, now - endedAtMs))} ago`;
  const remove = (item: CleanItem, path: string) => {
    if (!o.dryRun) rmSync(path, { recursive: true, force: true });
    report.removed.push(item);
  };

  for (const paths of listRuns(o.cwd)) {
    const v = viewRun(paths, now);
    const name = paths.dir.split('/').pop()!;
    if (v.health === 'running' || v.health === 'stale' || v.health === 'dead') {
      report.kept.push({ kind: 'run', name, why: v.health === 'dead' ? 'dead: no result, it can be resumed' : v.health });
      continue;
    }
    const endedAt = Date.parse(v.result?.endedAt ?? '') || mtimeMs(paths.dir);
    if (!oldEnough(endedAt)) report.kept.push({ kind: 'run', name, why: `${v.health}, ${age(endedAt)}` });
    else remove({ kind: 'run', name, why: `${v.health}, ${age(endedAt)}` }, paths.dir);
  }

  const root = findProjectRoot(o.cwd);
  const batches = join(ralphDir(o.cwd), 'batches');
  const unfinished = new Set<string>();
  for (const name of subdirs(batches)) {
    const dir = join(batches, name);
    const batch = readBatch(dir);
    const batchId = batch?.batchId ?? name;
    if (batch?.status !== 'done') {
      unfinished.add(batchId);
      report.kept.push({ kind: 'batch', name, why: batch === null ? 'no readable batch.json' : `${batch.status ?? 'unknown'}: it can be resumed` });
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
      for (const plan of subdirs(join(dir, 'worktrees'))) await gitOrNull(batch.repo, ['worktree', 'remove', '--force', join(dir, 'worktrees', plan)]);
    }
    remove({ kind: 'batch', name, why: `done, ${age(endedAt)}` }, dir);
  }
  if (!o.dryRun) await gitOrNull(root, ['worktree', 'prune']);

  const refs = await gitOrNull(root, ['for-each-ref', '--format=%(refname:short) %(committerdate:unix)', 'refs/heads/ralph/']);
  for (const line of (refs ?? '').split('\n').filter(Boolean)) {
    const [branch, when] = line.split(' ') as [string, string];
    const batchId = branch.split('/')[1] ?? '';
    const tipMs = Number(when) * 1000;
    if (unfinished.has(batchId)) {
      report.kept.push({ kind: 'branch', name: branch, why: 'its batch is kept' });
      continue;
    }
    // Merged, or never given a commit of its own: HEAD has every commit of it.
    const merged = (await gitOrNull(root, ['merge-base', '--is-ancestor', branch, 'HEAD'])) !== null;
    if (!merged) {
      report.kept.push({ kind: 'branch', name: branch, why: 'has commits HEAD does not have' });
      continue;
    }
    if (!oldEnough(tipMs)) {
      report.kept.push({ kind: 'branch', name: branch, why: `merged, last commit ${formatDuration(Math.max(0, now - tipMs))} ago` });
      continue;
    }
    if (o.dryRun || (await gitOrNull(root, ['branch', '-d', branch])) !== null) report.removed.push({ kind: 'branch', name: branch, why: 'merged or empty' });
    else report.kept.push({ kind: 'branch', name: branch, why: 'git would not delete it (checked out in a worktree?)' });
  }
  return report;
}

