// A batch's notifications and its after_plan / after_batch hooks (docs/config.md), following
// the batch's events: per plan `ended` (and `blocked`) once its final attempt is over, `waiting`
// and `resumed` from its runs, and `batch_ended` with the index's first line and the report.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { BatchEvent } from '../batch/events.js';
import { REPORT_FILE } from '../batch/index-file.js';
import type { HookCommand } from '../config/types.js';
import type { HookName } from '../contract.js';
import { HookRunner } from './hooks.js';
import { Notifier } from './notifier.js';
import { basePayload, withSummary, type NotificationPayload } from './payload.js';
import type { Redact } from './redact.js';
import { notifiesWait, waitPayload } from './run-lifecycle.js';
import type { Target } from './targets.js';

export interface BatchListenerSettings {
  hooks: Partial<Record<HookName, HookCommand[]>>;
  targets: readonly Target[];
  redact: Redact;
  cwd: string;
  onWarning: (message: string) => void;
  env?: NodeJS.ProcessEnv;
}

export interface BatchListener {
  onEvent(e: BatchEvent): void;
  /** after_batch hooks, then the deliveries still under way (within NOTIFY.flushMs). */
  finish(): Promise<void>;
}

export function createBatchListener(settings: BatchListenerSettings): BatchListener {
  const env = settings.env ?? process.env;
  const hooks = new HookRunner(settings.hooks, { redact: settings.redact, onWarning: settings.onWarning, env });
  const notifier = new Notifier(settings.targets, { redact: settings.redact, onWarning: settings.onWarning, env });
  const plans = new Map<string, { runDir: string; cwd: string; planPath: string | null; runId: string | null }>();
  let batchId = '';
  let out = '';
  // Hooks run one at a time, in the order of the events, without holding up the batch.
  let hookChain: Promise<unknown> = Promise.resolve();
  let ended: Extract<BatchEvent, { type: 'batch-end' }> | undefined;

  const planPayload = (event: NotificationPayload['event'], plan: string): NotificationPayload => {
    const p = plans.get(plan);
    return {
      ...basePayload(event, new Date(), p?.cwd ?? settings.cwd),
      plan,
      planPath: p?.planPath ?? null,
      runId: p?.runId ?? null,
      runDir: p?.runDir ?? null,
      batch: { id: batchId, out },
    };
  };

  return {
    onEvent(e) {
      switch (e.type) {
        case 'batch-start':
          batchId = e.batchId;
          out = e.out;
          return;
        case 'plan-start':
          plans.set(e.plan, { runDir: e.runDir, cwd: e.cwd, planPath: null, runId: null });
          return;
        case 'run': {
          const inner = e.event;
          const known = plans.get(e.plan);
          if (inner.type === 'run-start' && known) {
            known.runId = inner.runId;
            known.planPath = inner.planPath;
          } else if ((inner.type === 'wait_start' || inner.type === 'wait_end') && notifiesWait(inner)) {
            const p = planPayload('waiting', e.plan);
            const w = waitPayload(inner, { runId: p.runId ?? '', runDir: p.runDir ?? '', plan: e.plan, planPath: p.planPath ?? '', cwd: p.cwd, mode: 'new' }, new Date());
            notifier.send({ ...w, planPath: p.planPath, runId: p.runId, runDir: p.runDir, batch: p.batch });
          }
          return;
        }
        case 'plan-end': {
          const fill = (p: NotificationPayload) =>
            withSummary({ ...p, outcome: e.outcome, exitCode: e.exitCode, reason: e.reason, iterations: e.iterations, costUsd: e.costUsd, batch: { ...p.batch, out } });
          if (e.outcome === 'blocked') notifier.send(fill(planPayload('blocked', e.plan)));
          notifier.send(fill(planPayload('ended', e.plan)));
          if (hooks.has('after_plan')) {
            const p = plans.get(e.plan);
            hookChain = hookChain.then(() =>
              hooks.run({
                hook: 'after_plan',
                cwd: settings.cwd,
                env: {
                  RALPH_PLAN_ID: e.plan,
                  RALPH_OUTCOME: e.outcome,
                  RALPH_REASON: e.reason,
                  ...(e.exitCode !== null ? { RALPH_EXIT_CODE: String(e.exitCode) } : {}),
                  RALPH_BATCH_OUT: out,
                  RALPH_RESULT_FILE: e.resultFile,
                  ...(p ? { RALPH_RUN_DIR: p.runDir } : {}),
                },
                payload: { batch: batchId, out, plan: e.plan, outcome: e.outcome, exitCode: e.exitCode, reason: e.reason, verdict: e.verdict, resultFile: e.resultFile, runDir: p?.runDir ?? null, attempts: e.attempt },
              }),
            );
          }
          return;
        }
        case 'batch-end': {
          ended = e;
          const report = join(out, REPORT_FILE);
          const line = `[${e.complete}/${e.total} plans complete]`;
          const payload = withSummary({
            ...basePayload('batch_ended', new Date(), settings.cwd),
            exitCode: e.exitCode,
            batch: { id: batchId, out, complete: e.complete, total: e.total, line, index: e.index, report: existsSync(report) ? report : null, exitCode: e.exitCode, interrupted: e.interrupted },
          });
          notifier.send(payload);
          return;
        }
        case 'plan-retry':
        case 'delivered':
        case 'warning':
          return;
        default: {
          const never: never = e;
          return never;
        }
      }
    },
    async finish() {
      await hookChain;
      if (ended && hooks.has('after_batch')) {
        const e = ended;
        await hooks.run({
          hook: 'after_batch',
          cwd: settings.cwd,
          env: { RALPH_BATCH_ID: batchId, RALPH_BATCH_OUT: out, RALPH_COMPLETE: String(e.complete), RALPH_TOTAL: String(e.total), RALPH_EXIT_CODE: String(e.exitCode) },
          payload: { batch: batchId, out, complete: e.complete, total: e.total, line: `[${e.complete}/${e.total} plans complete]`, index: e.index, exitCode: e.exitCode, interrupted: e.interrupted },
        });
      }
      await notifier.flush();
    },
  };
}
