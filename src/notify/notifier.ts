// Sends notifications without ever holding up or failing a run (docs/config.md). Each target
// gets its notifications in order; a failed attempt is retried with backoff for a bounded time;
// at the end, flush() waits a bounded time for what is still under way and gives the rest up.
// Every delivery that fails is one warning, with its secrets redacted.
import { NOTIFY } from '../contract.js';
import { deliverOnce, DeliveryError } from './deliver.js';
import type { NotificationPayload } from './payload.js';
import type { Redact } from './redact.js';
import { wants, type Target } from './targets.js';

export interface NotifierOptions {
  onWarning: (message: string) => void;
  redact: Redact;
  retryWindowMs?: number;
  /** Backoff before retry n (1-based); default 0.5 s doubling to 8 s. */
  backoffMs?: (retry: number) => number;
  env?: NodeJS.ProcessEnv;
}

const defaultBackoff = (retry: number) => Math.min(8_000, 500 * 2 ** (retry - 1));

export class Notifier {
  private readonly chains = new Map<Target, Promise<void>>();
  private readonly pending = new Set<Promise<void>>();
  private readonly stop = new AbortController();

  constructor(
    private readonly targets: readonly Target[],
    private readonly options: NotifierOptions,
  ) {}

  get size(): number {
    return this.targets.length;
  }

  send(payload: NotificationPayload): void {
    if (this.stop.signal.aborted) return;
    for (const target of this.targets) {
      if (!wants(target, payload.event, payload.outcome)) continue;
      const previous = this.chains.get(target) ?? Promise.resolve();
      const next = previous.then(() => this.deliver(target, payload));
      this.chains.set(target, next);
      this.pending.add(next);
      void next.finally(() => this.pending.delete(next));
    }
  }

  /**
   * Waits at most `deadlineMs` for deliveries under way; what is left is given up (one warning
   * each). Resolves within the deadline plus the moment it takes to abort sockets and commands.
   */
  async flush(deadlineMs: number = NOTIFY.flushMs): Promise<void> {
    if (this.pending.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), deadlineMs);
    });
    const all = Promise.allSettled([...this.pending]).then(() => 'done' as const);
    const first = await Promise.race([all, late]);
    clearTimeout(timer);
    if (first === 'late') {
      this.stop.abort();
      await Promise.race([all, new Promise((r) => setTimeout(r, 1_000).unref())]);
    }
  }

  private async deliver(target: Target, payload: NotificationPayload): Promise<void> {
    const signal = this.stop.signal;
    const started = Date.now();
    const window = this.options.retryWindowMs ?? NOTIFY.retryWindowMs;
    const backoff = this.options.backoffMs ?? defaultBackoff;
    let attempts = 0;
    for (;;) {
      if (signal.aborted) {
        this.warn(target, payload, `given up: ralph waits at most ${NOTIFY.flushMs / 1000}s for notifications when it exits`, attempts);
        return;
      }
      attempts++;
      try {
        const note = await deliverOnce(target, payload, signal, this.options.env);
        if (note !== undefined) this.options.onWarning(this.options.redact(`notification "${payload.event}" to ${target.label}: ${note}`));
        return;
      } catch (error) {
        const e = error instanceof DeliveryError ? error : new DeliveryError(String(error), false);
        const wait = backoff(attempts);
        if (signal.aborted) {
          this.warn(target, payload, `given up: ralph waits at most ${NOTIFY.flushMs / 1000}s for notifications when it exits (last: ${e.message})`, attempts);
          return;
        }
        if (!e.retryable || Date.now() - started + wait > window) {
          this.warn(target, payload, e.message, attempts);
          return;
        }
        await sleep(wait, signal);
      }
    }
  }

  private warn(target: Target, payload: NotificationPayload, why: string, attempts: number): void {
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    this.options.onWarning(this.options.redact(`notification "${payload.event}" to ${target.label} not delivered${tries}: ${why}`));
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
