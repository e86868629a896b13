// One plan's run, bounded (docs/batch.md, docs/queue.md): stopped when its batch (or worker) stops
// or at --plan-timeout, and left behind as a straggler when it does not stop within a grace
// period. Shared by local attempts (run-attempt.ts) and queue workers (src/queue/run-job.ts).
import { DEFAULTS, EXIT_CODES } from '../contract.js';
import { RalphError } from '../errors.js';
import type { RunResult } from '../loop/types.js';
import type { AttemptOutcome } from './types.js';

export type Settled = { kind: 'result'; result: RunResult } | { kind: 'error'; error: unknown } | { kind: 'stuck' };

export interface BoundedRun {
  settled: Settled;
  timedOut: boolean;
}

/** Starts `run` with a signal that aborts with `signal` or at `planTimeoutMs`; gives up on it `graceMs` after the abort. */
export async function runBounded(o: { signal: AbortSignal; planTimeoutMs: number | undefined; graceMs: number; run: (signal: AbortSignal) => Promise<RunResult> }): Promise<BoundedRun> {
  const controller = new AbortController();
  let timedOut = false;
  const onAbort = () => controller.abort(o.signal.reason);
  if (o.signal.aborted) onAbort();
  else o.signal.addEventListener('abort', onAbort, { once: true });
  const timeout =
    o.planTimeoutMs !== undefined
      ? setTimeout(() => {
          timedOut = true;
          controller.abort(new Error('plan timeout'));
        }, o.planTimeoutMs)
      : undefined;
  let grace: NodeJS.Timeout | undefined;
  const stuck = new Promise<Settled>((resolve) => {
    const arm = () => (grace = setTimeout(() => resolve({ kind: 'stuck' }), o.graceMs));
    if (controller.signal.aborted) arm();
    else controller.signal.addEventListener('abort', arm, { once: true });
  });
  const running: Promise<Settled> = Promise.resolve()
    .then(() => o.run(controller.signal))
    .then(
      (result) => ({ kind: 'result', result }) as const,
      (error: unknown) => ({ kind: 'error', error }) as const,
    );
  const settled = await Promise.race([running, stuck]);
  clearTimeout(timeout);
  clearTimeout(grace);
  o.signal.removeEventListener('abort', onAbort);
  return { settled, timedOut };
}

/** The exit code an attempt reports: its run's, else the one its outcome stands for. */
export function attemptExitCode(outcome: AttemptOutcome, result: RunResult | null): number {
  return result?.exitCode ?? (outcome === 'interrupted' ? EXIT_CODES.interrupted : outcome === 'invalid' ? EXIT_CODES.usage : EXIT_CODES.failed);
}

/** What went wrong, in words: an Error's message, or the thrown value itself. */
export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** How long a stopped plan's run may take to wind down before its attempt gives up on it. */
export const STRAGGLER_GRACE_MS = DEFAULTS.killGraceMs + DEFAULTS.signalGraceMs;

/** The attempt's outcome and reason from how its bounded run ended. */
export function endingOf({ settled, timedOut }: BoundedRun, planTimeoutMs: number | undefined, graceMs: number): { outcome: AttemptOutcome; reason: string; result: RunResult | null } {
  const timeoutText = `plan timeout of ${Math.round((planTimeoutMs ?? 0) / 1000)}s reached`;
  switch (settled.kind) {
    case 'result': {
      const r = settled.result;
      if (timedOut && r.outcome === 'interrupted') return { outcome: 'timed_out', reason: `${timeoutText} (${r.reason})`, result: r };
      return { outcome: r.outcome, reason: r.reason, result: r };
    }
    case 'error': {
      const e = settled.error;
      if (e instanceof RalphError && e.exitCode === EXIT_CODES.usage) return { outcome: 'invalid', reason: message(e), result: null };
      return { outcome: 'crashed', reason: `the run crashed: ${message(e)}`, result: null };
    }
    case 'stuck': {
      const why = `the run did not stop within ${Math.round(graceMs / 1000)}s of being asked; left behind`;
      return timedOut ? { outcome: 'timed_out', reason: `${timeoutText}; ${why}`, result: null } : { outcome: 'interrupted', reason: why, result: null };
    }
    default: {
      const never: never = settled;
      return never;
    }
  }
}
