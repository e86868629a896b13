// What `ralph status` knows about a run, read from its files only: a run is judged the way a
// watchdog would judge it, without asking the process. Its files are checked before they are
// believed (the agent can reach them): one that cannot be used makes the run `unreadable`, with
// the reason, instead of breaking the view (docs/hostile.md "A corrupted .ralph").
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { STALE_SIGNAL_FILES } from '../contract.js';
import type { RunResult } from '../loop/types.js';
import { pidAlive } from './liveness.js';
import type { RunPaths } from './paths.js';
import type { RunState } from './run-state.js';
import { resumeCommand } from './run-settings.js';
import { waitLine } from '../ui/wait-line.js';
import type { LimitKind } from '../executors/types.js';
import { listOf, readChecked, type Shape } from './checked-json.js';
import { readRange } from '../util/file-range.js';
import type { StatusFile } from './status-file.js';

function limitKindOf(waitingFor: string | undefined): LimitKind {
  const kind = waitingFor?.split(' ')[0];
  return kind === 'rate' || kind === 'overloaded' ? kind : 'usage';
}

const TOKENS: Shape = { input: ['number'], output: ['number'], cacheRead: ['number'], cacheWrite: ['number'] };
const TASKS = listOf({ name: ['string'], status: ['string'] });
const RECEIPTS = listOf({ costUsd: ['number', 'null'], costEstimated: ['boolean'] });
/** The fields of each file that the views use, with their types. */
const RESULT_SHAPE: Shape = {
  run: ['string'],
  plan: ['string'],
  outcome: ['string'],
  exitCode: ['number'],
  reason: ['string'],
  iterations: ['number'],
  costUsd: ['number', 'null'],
  startedAt: ['string'],
  tokens: TOKENS,
  tasksVerified: ['string', 'undefined'],
  tasks: listOf({ name: ['string'], status: ['string'], iterations: ['number', 'null'], costUsd: ['number', 'null'] }),
  receipts: RECEIPTS,
};
// A state file of an older ralph may lack a field the view then does without; one it has must be right.
const STATE_SHAPE: Shape = {
  version: ['number'],
  runId: ['string'],
  planPath: ['string'],
  cwd: ['string'],
  plan: ['string', 'undefined'],
  startedAt: ['string', 'undefined'],
  startedAtMs: ['number', 'undefined'],
  iteration: ['number', 'undefined'],
  consecutiveBailouts: ['number', 'undefined'],
  costUsd: ['number', 'null', 'undefined'],
  tokens: TOKENS,
  pid: ['number', 'undefined'],
  outcome: ['string', 'null', 'undefined'],
  limits: { maxIterations: ['number'], maxBailouts: ['number'], maxCostUsd: ['number', 'null'], maxRuntimeMs: ['number', 'null'], silenceTimeoutMs: ['number'] },
  tasks: TASKS,
  receipts: RECEIPTS,
};
const STATUS_SHAPE: Shape = {
  plan: ['string'],
  started: ['string'],
  state: ['string'],
  iteration: ['number'],
  pid: ['number'],
  updated: ['string'],
  waitingUntil: ['string', 'undefined'],
  waitingFor: ['string', 'undefined'],
  tasksVerified: ['string', 'undefined'],
  tasks: TASKS,
};

export type Health = 'running' | 'stale' | 'dead' | 'unreadable' | RunResult['outcome'];

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
  /** Why a file of the run could not be used ("result.json: costUsd is a string, expected a number or null"). */
  problems: string[];
}

/** The `at` of the last whole line of events.jsonl, read from its tail only. */
export function lastEventAt(path: string): string | null {
  const lines = readRange(path, 0, 64 * 1024, true).bytes.toString('utf8').split('\n').filter((l) => l.trim() !== '');
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
  const problems: string[] = [];
  const use = <T>(read: ReturnType<typeof readChecked<T>>): T | undefined => {
    if ('problem' in read) problems.push(read.problem);
    return 'value' in read ? read.value : undefined;
  };
  const status = use(readChecked<StatusFile>(paths.status, STATUS_SHAPE, 1024 * 1024));
  const read = use(readChecked<RunState>(paths.state, STATE_SHAPE, 64 * 1024 * 1024));
  const state = read?.version === 1 ? read : undefined;
  const result = use(readChecked<RunResult>(paths.result, RESULT_SHAPE, 16 * 1024 * 1024));
  const last = lastEventAt(paths.events);
  const cwd = state?.cwd;
  const signalFiles = cwd ? STALE_SIGNAL_FILES.filter((name) => existsSync(join(cwd, name))) : [];
  const runId = state?.runId ?? result?.run ?? paths.dir.split('/').pop()!;
  const base = { runId, dir: paths.dir, lastEventAt: last, signalFiles, problems, ...(status ? { status } : {}), ...(state ? { state } : {}), ...(result ? { result } : {}) };
  if (problems.length > 0) return { ...base, health: 'unreadable', why: problems.join('; ') };
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
  const silence = state?.limits?.silenceTimeoutMs ?? 10 * 60_000;
  const lastMs = last ? Date.parse(last) : status ? Date.parse(status.updated) : NaN;
  if (Number.isFinite(lastMs) && now - lastMs > silence) {
    return { ...base, health: 'stale', why: `pid ${pid} is alive but nothing happened for ${Math.round((now - lastMs) / 1000)} s (silence timeout ${Math.round(silence / 1000)} s)` };
  }
  return { ...base, health: 'running', why: `pid ${pid} is alive` };
}
