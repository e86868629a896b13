// The public surface of queue/ (docs/queue.md): the coordinator of `ralph batch --queue` and `ralph worker`.
export { runQueuedBatch, type QueuedBatchOptions, type QueuedBatchDeps } from './coordinator.js';
export { startWorker, type WorkerOptions, type WorkerDeps, type RunningWorker } from './worker.js';
export { parseQueueUrl, type QueueUrl } from './redis-url.js';
// What `ralph serve --queue` reads from the queue (src/serve/queue-feed.ts).
export { progressForDisplay, type JobProgress, type QueueJob } from './job.js';
export { openRedis } from './redis-connection.js';
export type { RunningPlan } from './queue-status.js';
