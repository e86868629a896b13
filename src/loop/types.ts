// The shapes the loop exposes to the rest of ralph: what a run is asked to do (ExecOptions),
// what it reports as it goes (RunEvent), and what it ends with (RunResult = result.json).
import type { Outcome } from '../contract.js';
import type { TokenUsage } from '../executors/types.js';
import type { STREAM_FORMATS } from '../plan/types.js';
import type { RefusalCount, SandboxMode } from '../sandbox/index.js';

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
