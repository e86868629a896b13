// The older completion conventions (docs/signals.md#claims-made-through-files): TASK_COMPLETE / TASK_COMPLETE.md / BLOCKED.md /
// PR_URL files in the working directory. A file counts in the iteration in which it appeared or
// changed, so each iteration starts from a snapshot.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SIGNAL_FILES, STALE_SIGNAL_FILES } from '../contract.js';
import type { Weighed } from '../signals/index.js';

/** File name → content hash, for the signal files present. */
export type FileSnapshot = Record<string, string>;

export function snapshotSignalFiles(cwd: string): FileSnapshot {
  const snap: FileSnapshot = {};
  for (const name of STALE_SIGNAL_FILES) {
    const content = readIfFile(join(cwd, name));
    if (content !== undefined) snap[name] = createHash('sha1').update(content).digest('hex');
  }
  return snap;
}

function readIfFile(path: string): Buffer | undefined {
  try {
    if (!statSync(path).isFile()) return undefined;
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Removes stale signal files before the first iteration; returns the names removed. */
export function removeStaleSignalFiles(cwd: string): string[] {
  const removed: string[] = [];
  for (const name of STALE_SIGNAL_FILES) {
    const path = join(cwd, name);
    if (existsSync(path)) {
      rmSync(path, { force: true, recursive: false });
      removed.push(name);
    }
  }
  return removed;
}

export interface FileClaims {
  claims: Weighed[];
  /** First 5 lines of a new BLOCKED.md: the evidence of a blocked claim. */
  blockedEvidence?: string;
  /** The claim files, so a rejected claim can move them aside. */
  files: string[];
}

export function fileClaims(cwd: string, before: FileSnapshot): FileClaims {
  const now = snapshotSignalFiles(cwd);
  const changed = (name: string) => now[name] !== undefined && now[name] !== before[name];
  const result: FileClaims = { claims: [], files: [] };
  for (const name of [SIGNAL_FILES.taskComplete, SIGNAL_FILES.taskCompleteMd]) {
    if (changed(name)) {
      result.claims.push({ class: 'complete', name, args: [], source: name });
      result.files.push(name);
    }
  }
  if (changed(SIGNAL_FILES.blocked)) {
    const lines = readFileSync(join(cwd, SIGNAL_FILES.blocked), 'utf8').split(/\r?\n/);
    const reason = lines.find((l) => l.trim() !== '')?.trim().replace(/^#+\s*/, '') ?? SIGNAL_FILES.blocked;
    result.claims.push({ class: 'blocked', name: SIGNAL_FILES.blocked, args: [reason], source: SIGNAL_FILES.blocked });
    result.blockedEvidence = lines.slice(0, 5).join('\n');
    result.files.push(SIGNAL_FILES.blocked);
  }
  return result;
}

const PR_URL = /https:\/\/github\.com\/[\w.-]+\/[\w.-]+\/pull\/\d+/;

/** PR_URL's content wins; otherwise the first pull request URL in TASK_COMPLETE(.md). */
export function findPrUrl(cwd: string): string | null {
  const direct = readIfFile(join(cwd, SIGNAL_FILES.prUrl))?.toString('utf8').trim();
  if (direct) return direct.split(/\r?\n/)[0]!.trim();
  for (const name of [SIGNAL_FILES.taskComplete, SIGNAL_FILES.taskCompleteMd]) {
    const match = readIfFile(join(cwd, name))?.toString('utf8').match(PR_URL);
    if (match) return match[0];
  }
  return null;
}

/** Moves the files of a rejected claim into iterations/<n>/ so the next iteration starts clean. */
export function moveAside(cwd: string, files: string[], into: string): string[] {
  const moved: string[] = [];
  for (const name of files) {
    const from = join(cwd, name);
    if (!existsSync(from)) continue;
    mkdirSync(into, { recursive: true });
    renameSync(from, join(into, name));
    moved.push(name);
  }
  return moved;
}
