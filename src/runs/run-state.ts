// state.json: everything --resume needs to carry a run on (counters, snapshots, the executor's
// process group). STATUS.json stays the small public shape of docs/files.md#statusjson.
import type { SandboxResult } from '../loop/types.js';
import { readRegularFileSync } from '../util/read-regular-file.js';
import type { LimitKind, TokenUsage } from '../executors/types.js';
import type { IterationReceipt, SignalRecord, StopRecord, TaskState } from '../loop/types.js';
import type { ProtectedFiles } from '../loop/protected-files.js';
import type { Outcome } from '../contract.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import type { FileSnapshot } from '../loop/file-signals.js';
import type { RunSettings } from './run-settings.js';

export interface RunState {
  version: 1;
  runId: string;
  plan: string;
  planPath: string;
  cwd: string;
  executor: string;
  startedAt: string;
  startedAtMs: number;
  iteration: number;
  bailouts: number;
  consecutiveBailouts: number;
  consecutiveFailures: number;
  consecutiveBlockRejections: number;
  costUsd: number | null;
  tokens: TokenUsage;
  signals: SignalRecord[];
  /** ralph's stops of the agent (absent in state files older than the field). */
  stops?: StopRecord[];
  /** What the sandbox refused so far (docs/sandbox.md); counted on after --resume. */
  sandbox?: SandboxResult;
  warnings: string[];
  prUrl: string | null;
  /** HEAD when the run started (null outside a git repository), as docs/loop.md#before-the-first-iteration asks. */
  headAtStart: string | null;
  /** What HEAD and the signal files looked like when the current iteration started. */
  iterationStart: { head: string | null; files: FileSnapshot } | null;
  /** Process group of the executor while an iteration runs. */
  executorPid: number | null;
  pid: number;
  /** Text the next iteration's prompt carries: a rejection, a bailout reason. */
  feedback: string | null;
  nextFresh: boolean;
  outcome: Outcome | null;
  /** The plan's TASK_COMPLETE box was already checked when the run started: stale, never a claim. */
  checkboxAtStart: boolean;
  /**
   * sha256 of a summary file that was there when the run started and could not be moved aside:
   * a summary with this content is not this run's (docs/hostile.md "Summary"). Absent: none.
   */
  summaryAtStart?: string;
  /** The run's process marker (RALPH_RUN_TOKEN); absent in runs from before it existed. */
  runToken?: string;
  /** The limits in force (flags over front matter), for `ralph status`. */
  limits: RunLimits;
  /** How the run was started (exec options given), so --resume needs nothing else; absent in runs from before. */
  settings?: RunSettings;
  /** A wait for a usage limit in progress (epoch ms), so a resumed run waits for the rest. */
  waitUntil?: number | null;
  waitLimit?: { kind: LimitKind; message: string } | null;
  /** Time spent waiting for limits in this session of the run (bounded by max_wait). */
  waitedMs?: number;
  /** Limits in a row without an iteration that ran to its end: the backoff grows with it. */
  limitStreak?: number;
  /** Iterations in a row with no decision and no progress, and with permission denials. */
  consecutiveStalls?: number;
  consecutiveDenials?: number;
  /** The tasks' checks and their states; when they run (docs/plans.md#task-checks). */
  tasks?: TaskState[];
  taskCheckMode?: 'gate' | 'iteration' | 'off';
  /** The files the checks depend on, fingerprinted at the start (docs/plans.md#the-tamper-guard). */
  guarded?: ProtectedFiles;
  /** The last rejection of a completion claim (normalised) and how many iterations in a row gave it. */
  rejection?: { key: string; count: number } | null;
  /** A receipt per iteration. */
  receipts?: IterationReceipt[];
}

export interface RunLimits {
  maxIterations: number;
  maxBailouts: number;
  maxCostUsd: number | null;
  maxRuntimeMs: number | null;
  silenceTimeoutMs: number;
  maxWaitMs?: number;
  maxStalls?: number;
}

export function saveState(path: string, state: RunState): void {
  // Synchronous: it is also written on the way out of a second Ctrl+C.
  writeFileAtomicSync(path, `${JSON.stringify(state, null, 2)}\n`);
}

export function loadState(path: string): RunState | undefined {
  try {
    const value = JSON.parse(readRegularFileSync(path, 64 * 1024 * 1024).toString('utf8')) as RunState;
    return value && value.version === 1 ? value : undefined;
  } catch {
    return undefined;
  }
}
