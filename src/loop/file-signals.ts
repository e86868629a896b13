// The older completion conventions (docs/signals.md#claims-made-through-files): TASK_COMPLETE / TASK_COMPLETE.md / BLOCKED.md /
// PR_URL files in the working directory. A file counts in the iteration in which it appeared or
// changed, so each iteration starts from a snapshot.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SIGNAL_FILES, STALE_SIGNAL_FILES } from '../contract.js';
import type { Weighed } from '../signals/index.js';
import { moveFileSync } from '../util/move-file.js';
import { readOwnFilePrefixSync } from '../util/read-regular-file.js';

/**
 * A signal file is read only as far as this: a claim needs its first lines, a PR URL one line.
 * Only a regular file of its own in the working directory counts (not a symlink or hard link to
 * a file elsewhere, whose content would be copied into result.json; docs/hostile.md).
 */
const SIGNAL_FILE_READ_BYTES = 64 * 1024;

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
  return readOwnFilePrefixSync(path, SIGNAL_FILE_READ_BYTES);
}

/** Removes stale signal files before the first iteration; returns the names removed. */
export function removeStaleSignalFiles(cwd: string): string[] {
  const removed: string[] = [];
  for (const name of STALE_SIGNAL_FILES) {
    const path = join(cwd, name);
    if (lstatOrUndefined(path) !== undefined) {
      // A directory is refused before the run starts (preflight); a symlink goes, not its target.
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
  /** Signal files present but not counted (a symlink, a hard link, a directory): why, for a warning. */
  ignored: string[];
}

/** Why a signal file that is there is not one ralph reads, or undefined when it is a plain file of its own. */
function whyIgnored(path: string): string | undefined {
  const info = lstatOrUndefined(path);
  if (!info) return undefined;
  if (info.isSymbolicLink()) return 'is a symbolic link';
  if (!info.isFile()) return 'is not a regular file';
  if (info.nlink > 1) return 'has more than one hard link';
  return undefined;
}

export function fileClaims(cwd: string, before: FileSnapshot): FileClaims {
  const now = snapshotSignalFiles(cwd);
  const changed = (name: string) => now[name] !== undefined && now[name] !== before[name];
  const result: FileClaims = { claims: [], files: [], ignored: [] };
  for (const name of STALE_SIGNAL_FILES) {
    const why = whyIgnored(join(cwd, name));
    if (why !== undefined) result.ignored.push(`${name} ${why}`);
  }
  for (const name of [SIGNAL_FILES.taskComplete, SIGNAL_FILES.taskCompleteMd]) {
    if (changed(name)) {
      result.claims.push({ class: 'complete', name, args: [], source: name });
      result.files.push(name);
    }
  }
  if (changed(SIGNAL_FILES.blocked)) {
    const lines = (readIfFile(join(cwd, SIGNAL_FILES.blocked)) ?? Buffer.alloc(0)).toString('utf8').split(/\r?\n/);
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
    if (lstatOrUndefined(from) === undefined) continue;
    mkdirSync(into, { recursive: true });
    moveFileSync(from, join(into, name));
    moved.push(name);
  }
  return moved;
}

function lstatOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
