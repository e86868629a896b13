// Waiting out a usage or rate limit (docs/overnight.md): when the agent or the API refuses for a
// limit, the run waits until the limit resets and runs the same iteration again. A wait is a
// state of the loop, never a sleep hidden in an executor: it has events, a STATUS.json state,
// a bound (--max-wait), and it ends early for Ctrl+C or `ralph stop`.
import type { LimitKind } from '../executors/types.js';
import type { Clock } from './clock.js';

/** Added to a reset time the agent gave: its clock and ours may differ a little. */
export const RESET_MARGIN_MS = 5_000;
/** Without a reset time: the first wait, doubled on each limit in a row up to the cap. */
const BACKOFF_FIRST_MS: Record<LimitKind, number> = { usage: 60_000, rate: 30_000, overloaded: 15_000 };
const BACKOFF_CAP_MS = 30 * 60_000;
/** While waiting, how often to look for a stop request. */
export const STOP_POLL_MS = 2_000;

export interface LimitReport {
  kind: LimitKind;
  message: string;
  resetsAt?: number;
  retryAfterMs?: number;
}

export interface PlannedWait {
  /** Epoch ms at which the iteration runs again. */
  until: number;
  /** How `until` was chosen, for the event and the log. */
  basis: 'reset' | 'retry-after' | 'backoff';
}

/**
 * When to try again after `limit`. `streak` counts the limits in a row before this one (0 for
 * the first), so a limit that gives no time backs off further each time it repeats.
 */
export function planWait(limit: LimitReport, now: number, streak: number): PlannedWait {
  if (limit.resetsAt !== undefined && Number.isFinite(limit.resetsAt)) {
    // A reset already past waits only the margin, once: the same limit again right after the
    // wake-up means the time was stale, and the run backs off instead of trying every 5 seconds.
    if (limit.resetsAt > now || streak === 0) return { until: Math.max(limit.resetsAt, now) + RESET_MARGIN_MS, basis: 'reset' };
  }
  if (limit.retryAfterMs !== undefined && Number.isFinite(limit.retryAfterMs) && limit.retryAfterMs >= 0) {
    return { until: now + limit.retryAfterMs, basis: 'retry-after' };
  }
  const backoff = Math.min(BACKOFF_FIRST_MS[limit.kind] * 2 ** Math.min(streak, 20), BACKOFF_CAP_MS);
  return { until: now + backoff, basis: 'backoff' };
}

type LimitEvent = LimitReport & { resetFromWords?: boolean };

/**
 * One refusal often comes as several events (Claude Code: a `rate_limit_event` with the exact
 * reset, then a result whose words give it rounded down to the minute). The later event names the
 * kind and the message; the reset time is the exact one when any event gave one, else the latest
 * read from words; a wait given before is kept when the later event gives none.
 */
export function mergeLimit<T extends LimitEvent>(before: LimitEvent | undefined, next: T): T {
  const exactBefore = before?.resetsAt !== undefined && !before.resetFromWords;
  const takeNext = next.resetsAt !== undefined && !(exactBefore && next.resetFromWords);
  const reset = takeNext ? next : before;
  const merged: T = { ...next };
  delete merged.resetsAt;
  delete merged.resetFromWords;
  delete merged.retryAfterMs;
  if (reset?.resetsAt !== undefined) {
    merged.resetsAt = reset.resetsAt;
    if (reset.resetFromWords) merged.resetFromWords = true;
  }
  const retryAfterMs = next.retryAfterMs ?? before?.retryAfterMs;
  if (retryAfterMs !== undefined) merged.retryAfterMs = retryAfterMs;
  return merged;
}

export type WaitEnd = 'done' | 'aborted' | 'stop-requested';

/**
 * Sleeps on `clock` until `until`, looking for a stop request every STOP_POLL_MS. Ends early
 * when `signal` aborts or `stopRequested()` is true.
 */
export function sleepUntil(clock: Clock, until: number, signal: AbortSignal, stopRequested: () => boolean): Promise<WaitEnd> {
  return new Promise((resolve) => {
    let timer: unknown;
    const finish = (end: WaitEnd) => {
      if (timer !== undefined) clock.clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(end);
    };
    const onAbort = () => finish('aborted');
    const tick = () => {
      timer = undefined;
      if (stopRequested()) return finish('stop-requested');
      const left = until - clock.now();
      if (left <= 0) return finish('done');
      timer = clock.setTimeout(tick, Math.min(left, STOP_POLL_MS), true);
    };
    if (signal.aborted) return finish('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
    tick();
  });
}

/**
 * Limits shared by the plans of one batch that use the same agent: the first plan to meet a
 * limit records until when it waits, and the others wait with it instead of each spending an
 * attempt to discover it.
 */
export class SharedLimits {
  private readonly until = new Map<string, { until: number; limit: LimitReport }>();

  record(key: string, until: number, limit: LimitReport): void {
    const known = this.until.get(key);
    if (!known || known.until < until) this.until.set(key, { until, limit });
  }

  /** The wait in force for `key` at `now`, if any. */
  active(key: string, now: number): { until: number; limit: LimitReport } | undefined {
    const known = this.until.get(key);
    if (!known) return undefined;
    if (known.until <= now) {
      this.until.delete(key);
      return undefined;
    }
    return known;
  }
}
