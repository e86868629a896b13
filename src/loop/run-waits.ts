// Waiting out usage and rate limits (docs/overnight.md): when to run a refused iteration again,
// a wait in force (this run's, or one shared by a batch's plans on the same agent), and the wait
// itself, bounded by --max-wait, ended early by an interrupt or a stop request.
import { rmSync } from 'node:fs';
import { saveState } from '../runs/run-state.js';
import { formatDuration } from '../util/duration.js';
import { localTime } from '../ui/wait-line.js';
import { planWait, sleepUntil, type LimitReport, type SharedLimits } from './limit-wait.js';
import type { Ending, RunContext } from './run-context.js';

export interface DueWait extends LimitReport {
  until: number;
  basis: 'reset' | 'retry-after' | 'backoff' | 'shared';
}

/** The run as a wait needs it: STATUS.json says what it waits for; a stop request ends the wait. */
export interface WaitingRun extends RunContext {
  status(state: string, wait?: DueWait): void;
  stopRequested(): string | undefined;
}

export class LimitWaits {
  private basis: DueWait['basis'] = 'reset';

  constructor(
    private readonly ctx: WaitingRun,
    private readonly sharedLimits: SharedLimits | undefined,
  ) {}

  private limitKey(): string {
    const { config } = this.ctx;
    return config.executor === 'anthropic' ? 'anthropic' : `${config.command?.[0] ?? ''}|${config.streamFormat}`;
  }

  /** Records when to run the refused iteration again; ends the run when that is past --max-wait. */
  scheduleWait(limit: LimitReport): void {
    const { state } = this.ctx;
    const now = this.ctx.clock.now();
    const planned = planWait(limit, now, state.limitStreak ?? 0);
    state.limitStreak = (state.limitStreak ?? 0) + 1;
    this.sharedLimits?.record(this.limitKey(), planned.until, limit);
    state.waitUntil = planned.until;
    state.waitLimit = { kind: limit.kind, message: limit.message };
    this.basis = planned.basis;
    saveState(this.ctx.paths.state, state);
  }

  /** A wait in force: one this run scheduled (or was in when it stopped), or one shared in a batch. */
  dueWait(): DueWait | undefined {
    const { state } = this.ctx;
    const now = this.ctx.clock.now();
    if (state.waitUntil !== undefined && state.waitUntil !== null) {
      if (state.waitUntil > now) {
        const limit = state.waitLimit ?? { kind: 'usage' as const, message: 'a limit' };
        return { ...limit, until: state.waitUntil, basis: this.basis };
      }
      state.waitUntil = null;
      state.waitLimit = null;
    }
    const shared = this.sharedLimits?.active(this.limitKey(), now);
    return shared ? { ...shared.limit, until: shared.until, basis: 'shared' } : undefined;
  }

  /** Waits for `due`; undefined when the wait is over and the loop goes on, else how the run ends. */
  async waitOut(due: DueWait): Promise<Ending | undefined> {
    const { state, config, clock } = this.ctx;
    const start = clock.now();
    const waited = state.waitedMs ?? 0;
    const iteration = state.iteration + 1;
    const until = new Date(due.until).toISOString();
    if (waited + (due.until - start) > config.maxWaitMs) {
      return {
        outcome: 'exhausted',
        reason:
          `usage_limit: the ${due.kind} limit (${due.message.slice(0, 200)}) lifts at ${localTime(due.until)}, past --max-wait ${formatDuration(config.maxWaitMs)}` +
          ` (${formatDuration(waited)} waited already); resume after it lifts with: ${this.ctx.resumeCommand()}`,
      };
    }
    state.waitUntil = due.until;
    state.waitLimit = { kind: due.kind, message: due.message };
    this.ctx.status('waiting', due);
    this.ctx.emit({ type: 'wait_start', iteration, kind: due.kind, until, reason: due.message, basis: due.basis });
    const end = await sleepUntil(clock, due.until, this.ctx.runSignal, () => this.ctx.stopRequested() !== undefined);
    const waitedNow = clock.now() - start;
    state.waitedMs = waited + waitedNow;
    this.ctx.emit({ type: 'wait_end', iteration, kind: due.kind, until, reason: due.message, waitedMs: waitedNow, end });
    switch (end) {
      case 'done':
        state.waitUntil = null;
        state.waitLimit = null;
        saveState(this.ctx.paths.state, state);
        return undefined;
      case 'aborted':
        // state.waitUntil stays: a resumed run waits for the rest.
        return this.ctx.interruptedOrLimit();
      case 'stop-requested': {
        const stopFile = this.ctx.stopRequested();
        if (stopFile) rmSync(stopFile, { force: true });
        return { outcome: 'interrupted', reason: `stop requested while waiting for the ${due.kind} limit; resume with: ${this.ctx.resumeCommand()}` };
      }
      default: {
        const never: never = end;
        return never;
      }
    }
  }
}
