// Every event the loop reports, as one union keyed on `type`. The UI, the events.jsonl writer,
// the findings log and batch progress are subscribers; nothing else prints.
import type { Outcome } from '../contract.js';
import type { LimitKind, TokenUsage } from '../executors/types.js';
import type { ObservationRecord } from '../signals/index.js';
import type { Decision } from '../signals/index.js';
import type { RunResult } from './types.js';

export type RunState = 'starting' | 'running' | 'waiting' | 'verifying' | 'stopping' | 'ended';

export type RunEvent =
  | { type: 'run-start'; runId: string; runDir: string; plan: string; planPath: string; cwd: string; mode: 'new' | 'resume'; executor: string; maxIterations: number; startedAt: string; head: string | null }
  | { type: 'state'; state: RunState; detail?: string }
  | { type: 'iteration-start'; iteration: number; maxIterations: number; fresh: boolean; prompt: 'full' | 'condensed' | 'resume' | 'continue' }
  | { type: 'output'; iteration: number; stream: 'stdout' | 'stderr'; text: string }
  | { type: 'signal'; iteration: number; name: string; args: string[]; source: string; line?: number }
  | { type: 'malformed'; iteration: number; line: number; text: string; why: string; stream: string }
  | { type: 'ignored'; iteration: number; line: number; text: string; why: string; stream: string }
  | { type: 'observation'; iteration: number; record: ObservationRecord }
  | { type: 'tool'; iteration: number; name: string; summary: string; error?: string }
  | { type: 'usage'; iteration: number; tokens: TokenUsage; costUsd: number | null; totalCostUsd: number | null; totalTokens: TokenUsage }
  | { type: 'warning'; iteration?: number; message: string }
  | { type: 'silence'; iteration: number; silentMs: number; timeoutMs: number }
  | { type: 'decision'; iteration: number; decision: Decision }
  | { type: 'gate'; iteration: number; accepted: boolean; reason: string }
  | { type: 'iteration-end'; iteration: number; exitCode: number | null; durationMs: number; decision: Decision['kind'] }
  | { type: 'run-end'; outcome: Outcome; exitCode: number; reason: string; result: RunResult }
  /** The agent or API reported a usage or rate limit (docs/overnight.md). */
  | { type: 'limit'; iteration: number; kind: LimitKind; message: string; resetsAt?: string }
  /** The run waits for a limit to reset; `until` is ISO time. The iteration is then run again. */
  | { type: 'wait_start'; iteration: number; kind: LimitKind; until: string; reason: string; basis: 'reset' | 'retry-after' | 'backoff' | 'shared' }
  /** The wait is over: `end` says why (done: the reset time came). */
  | { type: 'wait_end'; iteration: number; kind: LimitKind; until: string; reason: string; waitedMs: number; end: 'done' | 'aborted' | 'stop-requested' };

export type RunEventType = RunEvent['type'];
