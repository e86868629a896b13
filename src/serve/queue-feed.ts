// The queue's side of the page (`ralph serve --queue URL`): which worker runs which plan, how
// far, and which plans wait, read from the jobs on the BullMQ queue (each worker writes its job's
// progress at every iteration and every 5 s, docs/queue.md). This is the one place the server
// reads queue payloads: what a job and its progress hold is mapped here to plain rows, so a change
// of the payloads (say, authenticated ones) changes this file only.
//
// One connection; asked every `intervalMs` only while a page is open (the server starts and
// stops it), and nothing is kept but the last snapshot.
import { Queue } from 'bullmq';
import { QUEUE } from '../contract.js';
import { oneLine as plainLine } from '../batch/one-line.js';
import { stripControl } from '../ui/sanitize.js';
import { progressForDisplay, openRedis, type JobProgress, type QueueJob, type QueueUrl, type RunningPlan } from '../queue/index.js';

/** A running plan as `ralph status --queue` has it (worker: `host (pid N)`, or null before a worker took it), less its branch. */
export interface QueuePlanRow extends Omit<RunningPlan, 'branch'> {
  prompt: string | null;
  startedAt: string | null;
}

export interface QueueSnapshot {
  queue: string;
  /** null when Redis answered; else why it did not (the page shows it, the server carries on). */
  error: string | null;
  at: string;
  workers: { worker: string; plans: QueuePlanRow[] }[];
  running: QueuePlanRow[];
  waiting: { batch: string; plan: string }[];
}

// Anyone who can write to the Redis can write these fields: one plain, bounded line each.
const oneLine = (text: string, max: number): string => plainLine(stripControl(text), max);
const t = (v: unknown, max = 300): string | null => (typeof v === 'string' ? oneLine(v, max) : typeof v === 'number' ? String(v) : null);
const n = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** A running job as a row: the adapter between queue payloads and the page. */
export function rowOfJob(data: unknown, progress: unknown): QueuePlanRow {
  // batchId and plan are repeated outside the job's seal for readers without the secret.
  const d = (typeof data === 'object' && data !== null ? data : {}) as Partial<Pick<QueueJob, 'batchId' | 'plan'>>;
  // Shown, never acted on, so the page needs no secret (as `ralph status --queue`); each field is then made one plain line.
  const p = progressForDisplay(progress);
  const w = (typeof p.worker === 'object' && p.worker !== null ? p.worker : null) as Partial<JobProgress['worker']> | null;
  const worker = w && typeof w.host === 'string' ? `${oneLine(w.host, 120)} (pid ${n(w.pid) ?? '?'})` : null;
  return {
    batch: t(d.batchId) ?? '?',
    plan: t(d.plan) ?? '?',
    worker,
    attempt: n(p.attempt),
    iteration: n(p.iteration),
    maxIterations: n(p.maxIterations),
    prompt: t(p.prompt, 20),
    checkout: w && typeof w.host === 'string' && typeof p.checkout === 'string' ? `${oneLine(w.host, 120)}:${oneLine(p.checkout, 300)}` : null,
    startedAt: t(p.startedAt, 40),
    heartbeat: t(p.at, 40),
  };
}

export function groupByWorker(running: QueuePlanRow[]): QueueSnapshot['workers'] {
  const by = new Map<string, QueuePlanRow[]>();
  for (const r of running) {
    const key = r.worker ?? 'starting';
    by.set(key, [...(by.get(key) ?? []), r]);
  }
  return [...by.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([worker, plans]) => ({ worker, plans }));
}

export class QueueFeed {
  private redis: ReturnType<typeof openRedis> | null = null;
  private queue: Queue | null = null;
  private timer: NodeJS.Timeout | null = null;
  private busy = false;
  last: QueueSnapshot;

  constructor(
    private readonly url: QueueUrl,
    private readonly onSnapshot: (s: QueueSnapshot) => void,
    private readonly intervalMs = 2_000,
  ) {
    this.last = { queue: url.display, error: 'not asked yet', at: new Date().toISOString(), workers: [], running: [], waiting: [] };
  }

  get active(): boolean {
    return this.timer !== null;
  }

  start(): void {
    if (this.timer) return;
    let lastError = '';
    this.redis ??= openRedis(this.url, (m) => (lastError = m));
    if (!this.queue) {
      this.queue = new Queue(QUEUE.name, { connection: this.redis });
      this.queue.on('error', () => undefined);
    }
    this.lastError = () => lastError;
    this.timer = setInterval(() => void this.ask(), this.intervalMs);
    this.timer.unref();
    void this.ask();
  }

  private lastError: () => string = () => '';

  /** No page open: stop asking (the connection stays for the next page). */
  pause(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async close(): Promise<void> {
    this.pause();
    await this.queue?.close().catch(() => undefined);
    await this.redis?.quit().catch(() => this.redis?.disconnect());
    this.queue = null;
    this.redis = null;
  }

  private async ask(): Promise<void> {
    if (this.busy || !this.queue || !this.redis) return;
    this.busy = true;
    try {
      if (this.redis.status !== 'ready') throw new Error(this.lastError() || `not connected (${this.redis.status})`);
      const active = await this.queue.getActive(0, 499);
      const running = active.map((job) => rowOfJob(job.data, job.progress));
      const waiting = (await this.queue.getWaiting(0, 499)).map((job) => {
        const r = rowOfJob(job.data, null);
        return { batch: r.batch, plan: r.plan };
      });
      this.publish({ queue: this.url.display, error: null, at: new Date().toISOString(), workers: groupByWorker(running), running, waiting });
    } catch (error) {
      this.publish({ ...this.last, error: oneLine(String((error as Error).message ?? error), 300), at: new Date().toISOString() });
    } finally {
      this.busy = false;
    }
  }

  private lastJson = '';

  private publish(s: QueueSnapshot): void {
    this.last = s;
    // Only what changed goes to the pages (a heartbeat time alone is a change: it says the worker lives).
    const json = JSON.stringify({ ...s, at: '' });
    if (json === this.lastJson) return;
    this.lastJson = json;
    this.onSnapshot(s);
  }
}
