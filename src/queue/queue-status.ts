// `ralph status --queue URL` (docs/queue.md): which worker runs which plan right now, read from
// the jobs' progress on the queue (each worker updates it at every iteration and every 5 s), and
// how many plans wait.
import { Queue } from 'bullmq';
import { QUEUE } from '../contract.js';
import { oneLine } from '../batch/one-line.js';
import { progressForDisplay, workerName, type QueueJob } from './job.js';
import { openRedis, probeRedis } from './redis-connection.js';
import type { QueueUrl } from './redis-url.js';

export interface RunningPlan {
  batch: string;
  plan: string;
  worker: string | null;
  attempt: number | null;
  iteration: number | null;
  maxIterations: number | null;
  branch: string | null;
  checkout: string | null;
  /** When the worker last said it was alive. */
  heartbeat: string | null;
}

export interface QueueStatus {
  queue: string;
  running: RunningPlan[];
  waiting: { batch: string; plan: string }[];
}

export async function readQueueStatus(q: QueueUrl): Promise<QueueStatus> {
  await probeRedis(q);
  const redis = openRedis(q);
  const queue = new Queue<QueueJob>(QUEUE.name, { connection: redis });
  try {
    const running = (await queue.getActive()).map((job): RunningPlan => {
      const data = (job.data ?? {}) as Partial<QueueJob>;
      const p = progressForDisplay(job.progress);
      return {
        batch: String(data.batchId),
        plan: String(data.plan),
        worker: p.worker ? workerName(p.worker) : null,
        attempt: p.attempt ?? null,
        iteration: p.iteration ?? null,
        maxIterations: p.maxIterations ?? null,
        branch: p.branch ?? null,
        checkout: p.checkout && p.worker ? `${p.worker.host}:${p.checkout}` : null,
        heartbeat: p.at ?? null,
      };
    });
    const waiting = (await queue.getWaiting()).map((job) => ({ batch: String(job.data?.batchId), plan: String(job.data?.plan) }));
    return { queue: q.display, running, waiting };
  } finally {
    await queue.close().catch(() => undefined);
    await redis.quit().catch(() => redis.disconnect());
  }
}

export function renderQueueStatus(s: QueueStatus, now: Date): string {
  const lines = [`queue ${s.queue}: ${s.running.length} plan(s) running, ${s.waiting.length} waiting`];
  // Anyone who can write to the Redis can write these fields: keep them to one plain line each.
  const t = (text: string | null) => (text === null ? null : oneLine(text, 300));
  for (const raw of s.running) {
    const r = { ...raw, batch: t(raw.batch)!, plan: t(raw.plan)!, worker: t(raw.worker), checkout: t(raw.checkout), heartbeat: raw.heartbeat };
    const ago = r.heartbeat ? `${Math.max(0, Math.round((now.getTime() - Date.parse(r.heartbeat)) / 1000))}s ago` : 'never';
    const where = r.worker ? `on ${r.worker}` : 'starting';
    const iteration = r.iteration ? `, iteration ${r.iteration}/${r.maxIterations}` : '';
    lines.push(`  ${r.batch}/${r.plan}  ${where}, attempt ${r.attempt ?? '?'}${iteration}, heartbeat ${ago}${r.checkout ? `, in ${r.checkout}` : ''}`);
  }
  for (const w of s.waiting) lines.push(`  ${t(w.batch)}/${t(w.plan)}  waiting`);
  return `${lines.join('\n')}\n`;
}
