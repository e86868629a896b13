// One run per plan and working directory at a time (docs/first-hour.md). The lock is a file in
// `<cwd>/.ralph/locks/` holding who took it (pid, host, start time, run). It is created whole and
// atomically: written under a private name, then hard-linked to its place, which fails when the
// lock exists. A lock whose process is gone on this host is stale and taken over; the takeover
// itself is guarded by a second such file, so two starts that find the same stale lock never
// both win.
import { createHash, randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { ralphDir } from './project-root.js';
import { UsageError } from '../errors.js';
import { ignoreEverythingIn } from './git-ignore.js';
import { ralphAlive } from './liveness.js';
import { realPath } from '../util/real-path.js';

export const LOCKS_DIR = 'locks';

export interface LockHolder {
  pid: number;
  host: string;
  startedAt: string;
  runId: string;
  runDir: string;
  plan: string;
  planPath: string;
  cwd: string;
  /** Tells this holding apart from any other, even by the same process. */
  token: string;
}

export interface PlanLock {
  path: string;
  holder: LockHolder;
  /** Removes the lock if it is still ours; safe to call more than once, synchronous (exit paths). */
  release(): void;
}

/**
 * The lock file of a plan in a working directory, keyed on their real paths: `ralph exec link.md`
 * (a symbolic link to plan.md) or a symlinked working directory is the same plan, and held.
 */
export function planLockPath(cwd: string, planPath: string, planId: string): string {
  const key = createHash('sha256').update(`${realPath(cwd)}\0${realPath(planPath)}`).digest('hex').slice(0, 12);
  const safeId = planId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 60);
  return join(ralphDir(cwd), LOCKS_DIR, `${safeId}-${key}.lock`);
}

function readHolder(path: string): LockHolder | null | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    return 'unreadable';
  }
  try {
    const h = JSON.parse(text) as LockHolder;
    return typeof h.pid === 'number' && typeof h.host === 'string' && typeof h.token === 'string' ? h : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** Tokens of the locks this process holds. */
const ownTokens = new Set<string>();

/**
 * Gone: on this host, and its process no longer runs (or a pid reused by something that is not
 * ralph). A lock naming this very process that it does not hold is an earlier life's: a
 * container that restarts reuses its pids.
 */
function gone(h: LockHolder): boolean {
  if (h.host !== hostname()) return false;
  return h.pid === process.pid ? !ownTokens.has(h.token) : !ralphAlive(h.pid);
}

/** Creates `path` holding `text`, whole, or returns false when it exists. */
function createExclusive(path: string, text: string): boolean {
  const tmp = join(resolve(path, '..'), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  writeFileSync(tmp, text);
  try {
    linkSync(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(tmp);
  }
}

function removeIf(path: string, token: string): void {
  const now = readHolder(path);
  if (now !== null && now !== 'unreadable' && now.token === token) {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }
}

/**
 * Takes over a stale lock: only the start that holds the guard file may, and only if the lock
 * still is the stale one it saw. Returns whether this start now holds the lock. Exported so a
 * test can replay a lost race step by step.
 */
export function takeOver(path: string, stale: LockHolder, text: string): boolean {
  const guard = `${path}.takeover`;
  const guardText = JSON.stringify({ pid: process.pid, host: hostname(), token: randomBytes(8).toString('hex') });
  if (!createExclusive(guard, guardText)) {
    const g = readHolder(guard);
    // A start that died while taking over (a window of microseconds) leaves its guard behind.
    if (g !== null && g !== 'unreadable' && gone(g)) removeIf(guard, g.token);
    return false;
  }
  try {
    const current = readHolder(path);
    if (current !== null && (current === 'unreadable' || current.token !== stale.token)) return false;
    if (current !== null) unlinkSync(path);
    return createExclusive(path, text);
  } finally {
    removeIf(guard, (JSON.parse(guardText) as { token: string }).token);
  }
}

export function heldMessage(h: LockHolder, path: string): UsageError {
  const where = h.host === hostname() ? `pid ${h.pid}` : `pid ${h.pid} on ${h.host}`;
  return new UsageError(
    `plan ${h.plan} is already running in ${h.cwd}: run ${h.runId} (${where}, started ${h.startedAt}) holds ${path}`,
    `Wait for it to end, watch it with \`ralph status ${h.runId}\`, or stop it with \`ralph stop ${h.runId}\`.${h.host === hostname() ? '' : ` It runs on another host: if it is gone, delete ${path}.`}`,
  );
}

/** Locks this process holds, released on exit however it comes (a second Ctrl+C exits at once). */
const held = new Set<() => void>();
let exitHook = false;
function track(release: () => void): void {
  held.add(release);
  if (!exitHook) {
    exitHook = true;
    process.on('exit', () => {
      for (const r of held) r();
    });
  }
}

export function acquirePlanLock(o: { cwd: string; planPath: string; planId: string; runId: string; runDir: string; now?: Date }): PlanLock {
  const path = planLockPath(o.cwd, o.planPath, o.planId);
  ignoreEverythingIn(ralphDir(o.cwd));
  mkdirSync(resolve(path, '..'), { recursive: true });
  const holder: LockHolder = {
    pid: process.pid,
    host: hostname(),
    startedAt: (o.now ?? new Date()).toISOString(),
    runId: o.runId,
    runDir: o.runDir,
    plan: o.planId,
    planPath: resolve(o.planPath),
    cwd: resolve(o.cwd),
    token: randomBytes(8).toString('hex'),
  };
  const text = `${JSON.stringify(holder, null, 2)}\n`;
  const release = () => {
    held.delete(release);
    ownTokens.delete(holder.token);
    removeIf(path, holder.token);
  };
  const lock: PlanLock = { path, holder, release };
  const taken = () => {
    ownTokens.add(holder.token);
    track(release);
    return lock;
  };
  for (let attempt = 0; attempt < 20; attempt++) {
    if (createExclusive(path, text)) return taken();
    const current = readHolder(path);
    if (current === null) continue; // released between the two steps: try again
    if (current === 'unreadable') {
      throw new UsageError(`the lock file ${path} cannot be read`, 'If no ralph runs this plan in this folder, delete the file and start again.');
    }
    if (!gone(current)) throw heldMessage(current, path);
    if (takeOver(path, current, text)) return taken();
    // Another start is taking the stale lock over: give it a moment to finish.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5 + attempt * 5);
  }
  const last = readHolder(path);
  if (last !== null && last !== 'unreadable') throw heldMessage(last, path);
  throw new UsageError(`could not take the lock ${path}: other starts of this plan keep taking it`, 'Start the plan once, and only once.');
}
