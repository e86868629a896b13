// What travels through the queue (docs/queue.md): a job per plan (what to run and where to get
// it), the worker's progress on the job, and one report per attempt. Reports live in a hash of
// the batch's own (not only in BullMQ's return value) because a retried attempt ends by failing
// its BullMQ attempt, which carries no value, and a coordinator that was away must still find it.
import { QUEUE } from '../contract.js';
import type { AttemptOutcome, SharedExecOptions, Verdict } from '../batch/index.js';
import type { RunResult } from '../loop/index.js';

export interface QueueJobData {
  v: 1;
  batchId: string;
  plan: string;
  /** The plan file, relative to the repository's top folder, with `/` separators. */
  planPath: string;
  /** Where workers clone from, and push the plan's branch to. */
  remote: string;
  /** The commit every plan of the batch starts from. */
  commit: string;
  /** Exec options for every plan; `cwd`, when set, is relative to the repository's top folder. */
  exec: SharedExecOptions;
  planTimeoutMs: number | null;
  /** The attempt number this job starts at (later than 1 when a resumed batch runs a plan again). */
  firstAttempt: number;
  /** Host name of the coordinating machine, for the worker's log. */
  coordinator: string;
}

export interface WorkerRef {
  id: string;
  host: string;
  pid: number;
}

/** job.progress while a worker runs the plan: which worker, which attempt, how far. */
export interface JobProgress {
  worker: WorkerRef;
  attempt: number;
  branch: string;
  runDir: string;
  checkout: string;
  startedAt: string;
  iteration: number;
  maxIterations: number;
  /** How the current iteration started (the loop's iteration-start event). */
  fresh: boolean;
  prompt: 'full' | 'condensed' | 'resume' | 'continue';
  at: string;
}

export interface AttemptReport {
  plan: string;
  attempt: number;
  /** False when the job is handed back to BullMQ for its retry. */
  final: boolean;
  outcome: AttemptOutcome;
  reason: string;
  exitCode: number | null;
  iterations: number | null;
  costUsd: number | null;
  verdict: Verdict;
  worker: WorkerRef;
  /** Worker-side paths (the transcripts stay there). */
  runDir: string;
  checkout: string;
  branch: string;
  /** The branch's commit as pushed, or null when nothing was pushed. */
  pushed: string | null;
  pushError: string | null;
  /** result.json of the run, when it ended with one. */
  result: RunResult | null;
  /** findings.jsonl of the run (bounded). */
  findings: string;
  /** The per-plan result file of this attempt, sentinel included. */
  text: string;
  endedAt: string;
}

export function jobId(batchId: string, plan: string): string {
  return `${batchId}/${plan}`;
}

export function batchKey(batchId: string, key: keyof typeof QUEUE.keys): string {
  return `${QUEUE.keyPrefix}${batchId}:${QUEUE.keys[key]}`;
}

export function reportField(plan: string, attempt: number): string {
  return `${plan}#${attempt}`;
}

/** How a worker is named to people: `host (pid N)`. */
export function workerName(w: WorkerRef): string {
  return `${w.host} (pid ${w.pid})`;
}
