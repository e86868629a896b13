// Every event the loop reports, as one union keyed on `type`. The UI, the events.jsonl writer,
// the findings log and batch progress are subscribers; nothing else prints.
import type { Outcome } from '../contract.js';
import type { TokenUsage } from '../executors/types.js';
import type { ObservationRecord } from '../signals/index.js';
import type { Decision } from '../signals/index.js';
import type { RunResult } from './types.js';

export type RunState = 'starting' | 'running' | 'verifying' | 'stopping' | 'ended';

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
  /** Processes of the run still running when an iteration ended, stopped (docs/hostile.md). */
  | { type: 'processes-stopped'; iteration: number; processes: { pid: number; command: string }[] }
  /** The iteration's transcript passed --max-log: its middle was dropped (docs/hostile.md). */
  | { type: 'transcript-cut'; iteration: number; totalBytes: number; droppedBytes: number; maxBytes: number }
  | { type: 'iteration-end'; iteration: number; exitCode: number | null; durationMs: number; decision: Decision['kind'] }
  | { type: 'run-end'; outcome: Outcome; exitCode: number; reason: string; result: RunResult };

export type RunEventType = RunEvent['type'];
