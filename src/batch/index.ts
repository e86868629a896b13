// The public surface of batch/: run a batch, and the pieces the CLI and other commands reuse.
export { runBatch, loadRunPlan, type BatchOptions, type BatchDeps } from './run-batch.js';
export type { BatchEvent, BatchEventType } from './events.js';
export { toJsonRecord } from './events.js';
export type { BatchSummary, PlanRow, RunPlanFn, IsolateMode, SharedExecOptions, Verdict, AttemptOutcome } from './types.js';
export { BATCH_FILE, readBatchFile, type BatchFile } from './batch-file.js';
export { TYPE_CODES, PRIORITY_OF } from './finding-codes.js';
export { createPlainProgress, createJsonProgress, createTtyProgress, type ProgressRenderer } from './progress.js';
