// Every event the loop reports, as one union keyed on `type`. The UI, the events.jsonl writer,
// the findings log and batch progress are subscribers; nothing else prints.
import type { NearMissReason, Outcome } from '../contract.js';
import type { LimitKind, TokenUsage } from '../executors/types.js';
import type { ObservationRecord } from '../signals/index.js';
import type { Decision } from '../signals/index.js';
import type { StopCause } from './iteration.js';
import type { RunResult } from './types.js';
import type { VerifyRecord } from './acceptance-gate.js';
import type { RefusalKind } from '../sandbox/index.js';

export type RunEvent =
  | { type: 'run-start'; runId: string; runDir: string; plan: string; planPath: string; cwd: string; mode: 'new' | 'resume'; executor: string; agent?: string; maxIterations: number; startedAt: string; head: string | null; config?: string | null }
  | { type: 'iteration-start'; iteration: number; maxIterations: number; fresh: boolean; prompt: 'full' | 'condensed' | 'resume' | 'continue' }
  | { type: 'output'; iteration: number; stream: 'stdout' | 'stderr'; text: string }
  | { type: 'signal'; iteration: number; name: string; args: string[]; source: string; line?: number }
  | { type: 'malformed'; iteration: number; line: number; text: string; why: string; stream: string }
  | { type: 'ignored'; iteration: number; line: number; text: string; why: string; stream: string }
  /** A line that carried a signal but was not one; never acted on (docs/overnight.md#near-misses). */
  | { type: 'near_miss'; iteration: number; line: number; text: string; reason: NearMissReason; hint: string; correct: string | null; stream: string }
  | { type: 'observation'; iteration: number; record: ObservationRecord }
  /** The agent CLI, as expanded from --agent or given after --, and how its output is read (docs/agents.md). */
  | { type: 'agent'; name: string | null; command: string[]; streamFormat: string; formatChosen: 'flag' | 'preset' | 'plan' | 'command' | 'default' }
  | { type: 'tool'; iteration: number; name: string; summary: string; phase: 'call' | 'result'; error?: string }
  /**
   * Tokens and cost as the agent reported them: `tokens`/`costUsd` are this report's (an estimate
   * when `estimate`), `totalTokens`/`totalCostUsd` the run's totals including it.
   */
  | { type: 'usage'; iteration: number; tokens: TokenUsage; costUsd: number | null; totalCostUsd: number | null; totalTokens: TokenUsage; estimate?: boolean }
  /** ralph stopped the agent: why (grace after a signal, timeout, silence, a limit, an interrupt, an error). */
  | { type: 'stop'; iteration: number; cause: StopCause; detail: string }
  | { type: 'warning'; iteration?: number; message: string }
  | { type: 'silence'; iteration: number; silentMs: number; timeoutMs: number }
  | { type: 'decision'; iteration: number; decision: Decision }
  /** `verify`: the verify commands the gate ran, with exit code and duration (docs/deliver.md reads them from events.jsonl). */
  | { type: 'gate'; iteration: number; accepted: boolean; reason: string; verify?: VerifyRecord[] }
  /**
   * The tasks' own checks ran (docs/plans.md#task-checks): "tasks 2/3 verified", the tasks that
   * pass now and did not before, those that passed and fail now. Iteration 0: before the first.
   */
  | { type: 'tasks'; iteration: number; verified: string; passing: string[]; regressed: string[]; mode?: string; detail?: string }
  /** Processes of the run still running when an iteration ended, stopped (docs/hostile.md). */
  | { type: 'processes-stopped'; iteration: number; processes: { pid: number; command: string }[] }
  /** The iteration's transcript passed --max-log: its middle was dropped (docs/hostile.md). */
  | { type: 'transcript-cut'; iteration: number; totalBytes: number; droppedBytes: number; maxBytes: number }
  | { type: 'iteration-end'; iteration: number; exitCode: number | null; durationMs: number; decision: Decision['kind'] }
  | { type: 'run-end'; outcome: Outcome; exitCode: number; reason: string; result: RunResult }
  /** The agent or API reported a usage or rate limit (docs/overnight.md). */
  | { type: 'limit'; iteration: number; kind: LimitKind; message: string; resetsAt?: string }
  /** The run waits for a limit to reset; `until` is ISO time. The iteration is then run again. */
  | { type: 'wait_start'; iteration: number; kind: LimitKind; until: string; reason: string; basis: 'reset' | 'retry-after' | 'backoff' | 'shared' }
  /** Whether the agent and verify commands run sandboxed, and why (docs/sandbox.md). */
  | { type: 'sandbox'; mode: 'on' | 'off'; why: string; writable?: string[]; hosts?: string[] }
  /**
   * The sandbox refused a write, a read or a connection. Sent the first time for each path or
   * host, and again when an iteration ends with the count if it came again.
   */
  | { type: 'sandbox_denied'; iteration: number; what: RefusalKind; target: string; count: number; by: 'agent' | 'verify' }
  /** The wait is over: `end` says why (done: the reset time came). */
  | { type: 'wait_end'; iteration: number; kind: LimitKind; until: string; reason: string; waitedMs: number; end: 'done' | 'aborted' | 'stop-requested' };
