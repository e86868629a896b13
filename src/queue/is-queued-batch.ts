// Whether a batch folder holds a queued batch, so `ralph batch --resume` hands it to the queue
// (docs/queue.md). Its own module: a local batch must not load BullMQ to find out.
import { resolve } from 'node:path';
import { readBatchFile } from '../batch/batch-file.js';

export async function isQueuedBatch(cwd: string, out: string): Promise<boolean> {
  try {
    return 'queue' in (await readBatchFile(resolve(cwd, out)));
  } catch {
    return false;
  }
}
