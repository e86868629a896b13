// The public surface of batch/: run a batch, and the pieces the CLI and other commands reuse.
export { runBatch, loadRunPlan, type BatchOptions, type BatchDeps } from './run-batch.js';
export type { BatchEvent, BatchEventType } from './events.js';
export { toJsonRecord } from './events.js';
export type { BatchSummary, BatchPlan, PlanRow, RunPlanFn, IsolateMode, SharedExecOptions, Verdict, AttemptOutcome, DeliverFn } from './types.js';
export { BATCH_FILE, readBatchFile, type BatchFile } from './batch-file.js';
export { TYPE_CODES, PRIORITY_OF } from './finding-codes.js';
export { createPlainProgress, createJsonProgress, createTtyProgress, type ProgressRenderer } from './progress.js';
// For queued batches (src/queue, docs/queue.md): the same result files, written from a worker's report.
export { partialPath, resultPath, moveAside, ATTEMPTS_DIR } from './partial-file.js';
export { receiptFacts, renderHeader, renderResult, renderErrorStub, progressLine, parseResultFile, withDelivery, type ResultFacts } from './result-file.js';
export { readFindings, indexFindings, verdictOf } from './findings-index.js';
export { readFreshSummary, summaryPathOf } from './summary-file.js';
export { finishBatch } from './finish-batch.js';
export { newBatchFile, writeBatchFile } from './batch-file.js';
export { resolvePlans } from './plan-list.js';
export { RUNS_DIR, runDirName } from './run-attempt.js';
export { branchName } from './worktree.js';
export { RETRYABLE } from './types.js';
export { batchIdAt, chooseBatchOut } from './batch-out.js';
