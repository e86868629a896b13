// The shapes the loop exposes to the rest of ralph: what a run is asked to do (ExecOptions),
// what it reports as it goes (RunEvent), and what it ends with (RunResult = result.json).
import type { Outcome } from '../contract.js';
import type { TokenUsage } from '../executors/types.js';
import type { STREAM_FORMATS } from '../plan/types.js';
import type { RefusalCount, SandboxMode } from '../sandbox/index.js';
import type { CheckResult } from './checks.js';
import type { TaskState } from './task-checks.js';

export type { CheckResult, TaskState };

export type ExecutorName = 'anthropic' | 'command';
export type StreamFormat = (typeof STREAM_FORMATS)[number];

/** Everything `ralph exec` needs, after flags and front matter have been merged (flags win). */
export interface ExecOptions {
  planPath: string;
  cwd: string;
  executor?: ExecutorName;
  /** Program and arguments of the `command` executor (after `--`, or the plan's `command:`). */
  command?: string[];
  /** --agent: a named agent (config file or preset); its command comes first, `command` is appended. */
  agent?: string;
  streamFormat?: StreamFormat;
  model?: string;
  maxIterations?: number;
  maxBailouts?: number;
  maxRuntimeMs?: number;
  maxCostUsd?: number;
  silenceTimeoutMs?: number;
  iterationTimeoutMs?: number;
  maxWaitMs?: number;
  maxStalls?: number;
  /** --verify-timeout: each verify command's limit. */
  verifyTimeoutMs?: number;
  /** --max-log: bytes of one iteration's transcript kept (head and tail). */
  maxLogBytes?: number;
  /** --summary, relative to the current directory. */
  summary?: string;
  /** --run-dir: the run directory itself. */
  runDir?: string;
  promptsDir?: string;
  contextBudget?: number;
  maxRetries?: number;
  /** --sandbox: on, off or auto (docs/sandbox.md). */
  sandbox?: SandboxMode;
  /** --resume: a run id, or 'latest'. */
  resume?: string;
  /** How long a failed/blocked/bailout signal leaves the executor running before it is stopped. */
  signalGraceMs?: number;
  /** The config file's `protect:` globs (docs/plans.md#the-tamper-guard), added to the plan's. */
  protect?: string[];
}

export interface SignalRecord {
  iteration: number;
  name: string;
  args: string[];
  /** 'stdout' | 'stderr' line signal, or the file/checkbox it came from. */
  source: string;
  line?: number;
}

export interface StopRecord {
  iteration: number;
  cause: string;
  detail: string;
}

/** What one iteration took and what came of it (docs/files.md#receipts). */
export interface IterationReceipt {
  iteration: number;
  durationMs: number;
  tokens: TokenUsage;
  /** USD: as the agent reported it, or estimated from the price table when `costEstimated`; null: unknown. */
  costUsd: number | null;
  costEstimated: boolean;
  /** The decision's kind: complete, bailout, failed, blocked or none. */
  decision: string;
  /** Every check ralph ran after this iteration: the gate's and the tasks'. */
  checks: CheckResult[];
  /** Why a completion (or blocker) claim was rejected; null when none was. */
  rejection: string | null;
}

/** One task's receipt: its check's state, and what it took to pass it first. */
export interface TaskReceipt extends TaskState {
  /** Iterations up to the one where it first passed (null: it has not passed). */
  iterations: number | null;
  /** Their cost, USD (null: unknown or not passed); `costEstimated` when any part was estimated. */
  costUsd: number | null;
  costEstimated: boolean;
}

/** result.json (docs/files.md#resultjson). */
export interface RunResult {
  run: string;
  plan: string;
  outcome: Outcome;
  exitCode: number;
  reason: string;
  iterations: number;
  bailouts: number;
  signals: SignalRecord[];
  /** Every time ralph stopped the agent, and why (docs/agents.md, "Stopping an agent"). */
  stops?: StopRecord[];
  prUrl: string | null;
  costUsd: number | null;
  tokens: TokenUsage;
  startedAt: string;
  endedAt: string;
  warnings: string[];
  /** The tasks with their own checks (docs/plans.md#task-checks); "tasks 2/3 verified". */
  tasks?: TaskReceipt[];
  tasksVerified?: string;
  /** A receipt per iteration (docs/files.md#receipts). */
  receipts?: IterationReceipt[];
  /** Where the run's files are (not in the contract; handy for batch and report). */
  runDir?: string;
  /** Whether the agent ran sandboxed, and what the sandbox refused (docs/sandbox.md). */
  sandbox?: SandboxResult;
  /** `ralph exec --pr`: what delivery did, written after the run (docs/deliver.md). */
  delivery?: { note: string; failed: boolean };
}

export interface SandboxResult {
  mode: 'on' | 'off';
  /** How many refusals in all (a write, a read, a connection each). */
  denied: number;
  refusals: RefusalCount[];
}
