// The JSON every notification target, and every hook, receives (docs/config.md): one versioned
// shape for all events; `summary` is the one-line text chat targets show.
import { NOTIFY, type NotifyEventName } from '../contract.js';

export interface WaitFacts {
  iteration: number;
  kind: string;
  /** ISO time the wait ends, when known. */
  until: string | null;
  reason: string;
}

export interface BatchFacts {
  id: string;
  out: string;
  complete: number;
  total: number;
  /** `[N/M plans complete]`, the first line of index.md. */
  line: string;
  index: string;
  /** The observations report, or null when it was not written. */
  report: string | null;
  exitCode: number;
  interrupted: boolean;
}

export interface NotificationPayload {
  version: typeof NOTIFY.payloadVersion;
  event: NotifyEventName;
  at: string;
  /** One line for people: what happened, to which plan, where to look. */
  summary: string;
  /** Plan id (null for batch_ended). */
  plan: string | null;
  planPath: string | null;
  runId: string | null;
  runDir: string | null;
  cwd: string;
  /** ended, blocked: how the run ended (in a batch also crashed, timed_out, invalid). */
  outcome: string | null;
  exitCode: number | null;
  reason: string | null;
  iterations: number | null;
  costUsd: number | null;
  /** "tasks 2/3 verified" for a plan whose tasks have checks (docs/plans.md#task-checks), else null. */
  tasksVerified: string | null;
  prUrl: string | null;
  /** waiting, resumed. */
  wait: WaitFacts | null;
  /** batch_ended, and per-plan events of a batch. */
  batch: Partial<BatchFacts> | null;
}

// C0, DEL and C1 (U+009B alone starts an escape sequence on some terminals), and the line separators.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/**
 * Reasons come from the agent: one line, no control characters, bounded (docs/config.md). Nothing
 * else is changed: a notification is no result file, so `|` and `<!--` stay as written (each
 * receiver's own escaping is done where the request is made, Slack's in deliver.ts).
 */
export function clean(text: string, max = 1_000): string {
  let s = text.replace(CONTROL, ' ').replace(/\s+/g, ' ').trim();
  if (s.length > max) s = `${s.slice(0, max - 1)}…`;
  return s;
}

export function basePayload(event: NotifyEventName, at: Date, cwd: string): NotificationPayload {
  return {
    version: NOTIFY.payloadVersion,
    event,
    at: at.toISOString(),
    summary: '',
    plan: null,
    planPath: null,
    runId: null,
    runDir: null,
    cwd,
    outcome: null,
    exitCode: null,
    reason: null,
    iterations: null,
    costUsd: null,
    tasksVerified: null,
    prUrl: null,
    wait: null,
    batch: null,
  };
}

/** The one-line text of a notification; agent text in it is already cleaned. */
export function summaryOf(p: NotificationPayload): string {
  const plan = p.plan ?? '?';
  const where = p.runDir ? ` (run ${p.runDir})` : '';
  switch (p.event) {
    case 'ended':
      return `ralph: plan ${plan} ended ${p.outcome ?? '?'}${p.tasksVerified ? ` (${p.tasksVerified})` : ''}${p.reason ? `: ${clean(p.reason, 300)}` : ''}${where}`;
    case 'blocked':
      return `ralph: plan ${plan} is blocked: ${clean(p.reason ?? '', 300)}${where}`;
    case 'waiting':
      return `ralph: plan ${plan} is waiting for a ${p.wait?.kind ?? ''} limit${p.wait?.until ? ` until ${p.wait.until}` : ''}${p.wait?.reason ? `: ${clean(p.wait.reason, 200)}` : ''}`;
    case 'resumed':
      return `ralph: plan ${plan} resumed after a ${p.wait?.kind ?? ''} limit`;
    case 'batch_ended':
      return `ralph: batch ${p.batch?.id ?? ''} ended ${p.batch?.line ?? ''}${p.batch?.interrupted ? ' (interrupted)' : ''}; index ${p.batch?.index ?? ''}${p.batch?.report ? `, report ${p.batch.report}` : ''}`;
    default: {
      const never: never = p.event;
      return String(never);
    }
  }
}

export function withSummary(p: NotificationPayload): NotificationPayload {
  p.summary = summaryOf(p);
  return p;
}
