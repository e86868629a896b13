// What `ralph status` knows about a run, read from its files only: a run is judged the way a
// watchdog would judge it, without asking the process.
import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { readRegularFileSync } from '../util/read-regular-file.js';
import { join } from 'node:path';
import { STALE_SIGNAL_FILES } from '../contract.js';
import type { RunResult } from '../loop/types.js';
import { pidAlive } from './liveness.js';
import type { RunPaths } from './paths.js';
import { loadState, type RunState } from './run-state.js';
import { resumeCommand } from './run-settings.js';
import { waitLine } from '../ui/wait-line.js';
import type { LimitKind } from '../executors/types.js';

function limitKindOf(waitingFor: string | undefined): LimitKind {
  const kind = waitingFor?.split(' ')[0];
  return kind === 'rate' || kind === 'overloaded' ? kind : 'usage';
}
import { readStatus, type StatusFile } from './status-file.js';

export type Health = 'running' | 'stale' | 'dead' | RunResult['outcome'];

export interface RunView {
  runId: string;
  dir: string;
  health: Health;
  status?: StatusFile;
  state?: RunState;
  result?: RunResult;
  lastEventAt: string | null;
  signalFiles: string[];
  why: string;
}

function readJson<T>(path: string): T | undefined {
  try {
    // An agent can reach the run directory: a FIFO planted there must not hang `ralph status`.
    return JSON.parse(readRegularFileSync(path, 16 * 1024 * 1024).toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The `at` of the last whole line of events.jsonl, read from its tail only. */
export function lastEventAt(path: string): string | null {
  if (!existsSync(path)) return null;
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  const buf = (() => {
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) return Buffer.alloc(0);
      const take = Math.min(info.size, 64 * 1024);
      const b = Buffer.alloc(take);
      readSync(fd, b, 0, take, info.size - take);
      return b;
    } finally {
      closeSync(fd);
    }
  })();
  const lines = buf.toString('utf8').split('\n').filter((l) => l.trim() !== '');
  for (let i = lines.length - 1; i >= 0; i--) {
    try {
      const at = (JSON.parse(lines[i]!) as { at?: unknown }).at;
      if (typeof at === 'string') return at;
    } catch {
      // a torn first line of the tail window
    }
  }
  return null;
}

export function viewRun(paths: RunPaths, now = Date.now()): RunView {
  const status = readStatus(paths.status);
  const state = loadState(paths.state);
  const result = readJson<RunResult>(paths.result);
  const last = lastEventAt(paths.events);
  const cwd = state?.cwd;
  const signalFiles = cwd ? STALE_SIGNAL_FILES.filter((name) => existsSync(join(cwd, name))) : [];
  const runId = state?.runId ?? result?.run ?? paths.dir.split('/').pop()!;
  const base = { runId, dir: paths.dir, lastEventAt: last, signalFiles, ...(status ? { status } : {}), ...(state ? { state } : {}), ...(result ? { result } : {}) };
  const pid = status?.pid ?? state?.pid;
  const ended = result !== undefined && (state?.outcome ?? result.outcome) !== null && !(pid !== undefined && pidAlive(pid) && state?.outcome === null);
  if (ended) return { ...base, health: result.outcome, why: result.reason };
  if (pid === undefined || !pidAlive(pid)) {
    return { ...base, health: 'dead', why: `its ralph process${pid !== undefined ? ` (pid ${pid})` : ''} is gone and it wrote no result: resume it with: ${state ? resumeCommand({ ...state, runDir: paths.dir }) : `ralph exec <plan> --resume ${runId}`}` };
  }
  // A run waiting for a usage limit is quiet on purpose until the limit resets.
  const waitingUntil = status?.state === 'waiting' && status.waitingUntil ? Date.parse(status.waitingUntil) : NaN;
  if (Number.isFinite(waitingUntil) && waitingUntil > now) {
    return { ...base, health: 'running', why: `pid ${pid} is alive and ${waitLine(limitKindOf(status!.waitingFor), new Date(waitingUntil), new Date(now))}` };
  }
  const silence = state?.limits.silenceTimeoutMs ?? 10 * 60_000;
  const lastMs = last ? Date.parse(last) : status ? Date.parse(status.updated) : NaN;
  if (Number.isFinite(lastMs) && now - lastMs > silence) {
    return { ...base, health: 'stale', why: `pid ${pid} is alive but nothing happened for ${Math.round((now - lastMs) / 1000)} s (silence timeout ${Math.round(silence / 1000)} s)` };
  }
  return { ...base, health: 'running', why: `pid ${pid} is alive` };
}
