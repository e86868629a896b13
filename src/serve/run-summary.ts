// One run as the overview shows it: read from STATUS.json, state.json and result.json (through
// runs/run-view, the same reading `ralph status` does) and the digest of its events.jsonl. Every
// string here may hold agent text; the page puts them in with textContent only.
import { basename } from 'node:path';
import type { RunView } from '../runs/run-view.js';
import { cutText } from './transcript-items.js';
import type { RunDigest } from './run-digest.js';

/** running, waiting, verifying, starting while its process lives; stale or dead when it does not answer; done at the end. */
export type LiveState = 'starting' | 'running' | 'waiting' | 'verifying' | 'stale' | 'dead' | 'done';

export interface TaskState {
  name: string;
  state: string;
}

export interface RunSummary {
  key: string;
  runId: string;
  batch: string | null;
  plan: string | null;
  planPath: string | null;
  state: LiveState;
  health: string;
  why: string;
  waitingUntil: string | null;
  waitingFor: string | null;
  task: string | null;
  /** Per-task states, when STATUS.json carries them. */
  tasks: TaskState[] | null;
  iteration: number;
  maxIterations: number | null;
  startedAt: string | null;
  endedAt: string | null;
  costUsd: number | null;
  lastTool: RunDigest['lastTool'];
  /** The last line of the agent's own words in the current iteration, while the run is live. */
  lastWords: string | null;
  nearMisses: number;
  lastNearMiss: string | null;
  warnings: number;
  lastWarning: string | null;
  findings: number;
  outcome: string | null;
  reason: string | null;
  pid: number | null;
}

const LIVE: Record<string, LiveState> = { starting: 'starting', running: 'running', waiting: 'waiting', verifying: 'verifying' };

// viewRun has checked STATUS.json's shape (each task a name and a status): only the length is bounded here.
function tasksOf(status: RunView['status']): TaskState[] | null {
  return status?.tasks?.slice(0, 200).map((t) => ({ name: cutText(t.name, 300), state: cutText(t.status, 40) })) ?? null;
}

export function summarize(key: string, batch: string | null, v: RunView, d: RunDigest, words: string | null = null): RunSummary {
  const s = v.status;
  const ended = v.result !== undefined && v.health === v.result.outcome;
  const state: LiveState = ended ? 'done' : v.health === 'stale' ? 'stale' : v.health === 'dead' ? 'dead' : (LIVE[s?.state ?? ''] ?? 'running');
  return {
    key,
    runId: v.runId,
    batch,
    plan: v.result?.plan ?? v.state?.plan ?? (s?.plan ? basename(s.plan).replace(/\.md$/, '') : null),
    planPath: s?.plan ?? v.state?.planPath ?? null,
    state,
    health: v.health,
    why: cutText(v.why, 2000),
    waitingUntil: state === 'waiting' ? (s?.waitingUntil ?? null) : null,
    waitingFor: state === 'waiting' ? (s?.waitingFor ?? null) : null,
    task: ended ? null : (s?.task ?? null),
    tasks: tasksOf(s),
    iteration: v.result?.iterations ?? s?.iteration ?? v.state?.iteration ?? d.iteration,
    maxIterations: v.state?.limits?.maxIterations ?? d.maxIterations,
    startedAt: v.result?.startedAt ?? v.state?.startedAt ?? s?.started ?? null,
    endedAt: ended ? (v.result?.endedAt ?? null) : null,
    costUsd: v.result?.costUsd ?? d.costUsd ?? v.state?.costUsd ?? null,
    lastTool: d.lastTool,
    lastWords: ended ? null : words,
    nearMisses: d.nearMisses,
    lastNearMiss: d.lastNearMiss,
    warnings: Math.max(d.warnings, v.result?.warnings.length ?? 0),
    lastWarning: d.lastWarnings.at(-1) ?? (v.result?.warnings.at(-1) !== undefined ? cutText(v.result.warnings.at(-1)!, 600) : null),
    findings: d.findingCount,
    outcome: ended ? v.result!.outcome : null,
    reason: ended ? cutText(v.result!.reason, 2000) : null,
    pid: s?.pid ?? null,
  };
}
