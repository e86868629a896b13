// Everything a batch reports, one union keyed on `type`. Each plan's own loop events travel
// inside `run` events tagged with the plan and attempt; the renderers are the only subscribers.
import type { RunEvent } from '../loop/events.js';
import type { AttemptOutcome, IsolateMode, Verdict } from './types.js';

export type BatchEvent =
  | { type: 'batch-start'; batchId: string; out: string; plans: string[]; toRun: string[]; concurrency: number; isolate: IsolateMode; resumed: boolean; queue?: string; config?: string | null }
  | { type: 'plan-start'; plan: string; attempt: number; runDir: string; cwd: string; branch: string | null; worktree: string | null; worker?: string }
  | { type: 'run'; plan: string; attempt: number; event: RunEvent }
  | { type: 'plan-retry'; plan: string; attempt: number; outcome: AttemptOutcome; reason: string; movedTo: string }
  /** `exitCode`: what `ralph exec` would exit with for the final attempt (bounded-run.ts attemptExitCode); null when no worker reported one. */
  | { type: 'plan-end'; plan: string; attempt: number; outcome: AttemptOutcome; reason: string; exitCode: number | null; verdict: Verdict; resultFile: string; iterations: number | null; costUsd: number | null }
  | { type: 'warning'; plan?: string; message: string }
  /** --pr: the plan's branch delivered (docs/deliver.md); `note` says what was done. A failed delivery is a warning instead. */
  | { type: 'delivered'; plan: string; prUrl: string | null; note: string }
  | { type: 'batch-end'; complete: number; total: number; exitCode: number; interrupted: boolean; index: string };

export type BatchEventType = BatchEvent['type'];

/** One NDJSON object per event for --json: loop events are flattened and tagged with `plan`. */
export function toJsonRecord(e: BatchEvent): Record<string, unknown> {
  if (e.type === 'run') {
    if (e.event.type === 'run-end') {
      // The result is in result.json already; keep the line short.
      const { result: _result, ...rest } = e.event;
      return { ...rest, plan: e.plan, attempt: e.attempt };
    }
    return { ...e.event, plan: e.plan, attempt: e.attempt };
  }
  return { ...e };
}
