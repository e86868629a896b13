// The public surface of queue/ (docs/queue.md): the coordinator of `ralph batch --queue` and `ralph worker`.
export { runQueuedBatch, type QueuedBatchOptions, type QueuedBatchDeps } from './coordinator.js';
export { startWorker, type WorkerOptions, type WorkerDeps, type RunningWorker } from './worker.js';
export { parseQueueUrl, type QueueUrl } from './redis-url.js';
