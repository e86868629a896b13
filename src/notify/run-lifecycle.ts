// One run's hooks and notifications (docs/config.md), as the loop's RunLifecycle: the hooks are
// awaited at their points; notifications follow the run's events on the bus and are flushed,
// within NOTIFY.flushMs, when the run ends. Warnings go back on the bus.
import type { RunBus } from '../loop/bus.js';
import type { RunEvent } from '../loop/events.js';
import type { RunFacts, RunLifecycle, RunLifecycleFactory } from '../loop/lifecycle.js';
import type { RunResult } from '../loop/types.js';
import type { HookCommand } from '../config/types.js';
import type { HookName } from '../contract.js';
import { HookRunner } from './hooks.js';
import { Notifier } from './notifier.js';
import { basePayload, withSummary, type NotificationPayload, type WaitFacts } from './payload.js';
import type { Redact } from './redact.js';
import type { Target } from './targets.js';

/** The loop's waits for a usage limit (docs/overnight.md). */
export type WaitEvent = Extract<RunEvent, { type: 'wait_start' | 'wait_end' }>;

/** A wait that ended because the run was stopped is followed by the run's end, not a resumption. */
export function notifiesWait(e: WaitEvent): boolean {
  return e.type === 'wait_start' || e.end === 'done';
}

export interface LifecycleSettings {
  hooks: Partial<Record<HookName, HookCommand[]>>;
  /** Empty in a batch: the batch notifies for its plans. */
  targets: readonly Target[];
  redact: Redact;
  env?: NodeJS.ProcessEnv;
  /** The run's interrupt (Ctrl+C): it stops a before_iteration or after_iteration hook under way. */
  signal?: AbortSignal;
}

function runFactsEnv(facts: RunFacts): Record<string, string> {
  return { RALPH_RUN_ID: facts.runId, RALPH_RUN_DIR: facts.runDir, RALPH_PLAN: facts.planPath, RALPH_PLAN_ID: facts.plan, RALPH_CWD: facts.cwd };
}

function runPayload(event: NotificationPayload['event'], facts: RunFacts, at: Date): NotificationPayload {
  return { ...basePayload(event, at, facts.cwd), plan: facts.plan, planPath: facts.planPath, runId: facts.runId, runDir: facts.runDir };
}

/** ended (and blocked before it) from a result. */
function endedPayloads(facts: RunFacts, result: RunResult, at: Date): NotificationPayload[] {
  const fill = (p: NotificationPayload) =>
    withSummary({ ...p, outcome: result.outcome, exitCode: result.exitCode, reason: result.reason, iterations: result.iterations, costUsd: result.costUsd, tasksVerified: result.tasksVerified ?? null, prUrl: result.prUrl });
  const out = [fill(runPayload('ended', facts, at))];
  if (result.outcome === 'blocked') out.unshift(fill(runPayload('blocked', facts, at)));
  return out;
}

export function waitPayload(e: WaitEvent, facts: RunFacts, at: Date): NotificationPayload {
  const wait: WaitFacts = { iteration: e.iteration, kind: e.kind, until: e.until, reason: e.reason };
  return withSummary({ ...runPayload(e.type === 'wait_start' ? 'waiting' : 'resumed', facts, at), wait });
}

export function createRunLifecycle(settings: LifecycleSettings): RunLifecycleFactory {
  return (facts: RunFacts, bus: RunBus): RunLifecycle => {
    const warn = (message: string) => bus.emitEvent({ type: 'warning', message });
    const env = settings.env ?? process.env;
    const hooks = new HookRunner(settings.hooks, { redact: settings.redact, onWarning: warn, env, ...(settings.signal ? { signal: settings.signal } : {}) });
    const notifier = new Notifier(settings.targets, { redact: settings.redact, onWarning: warn, env });
    if (notifier.size > 0) {
      bus.on('event', (e) => {
        if (e.type === 'run-end') for (const p of endedPayloads(facts, e.result, new Date())) notifier.send(p);
        else if ((e.type === 'wait_start' || e.type === 'wait_end') && notifiesWait(e)) notifier.send(waitPayload(e, facts, new Date()));
      });
    }
    const call = (hook: HookName, extraEnv: Record<string, string>, payload: Record<string, unknown>) =>
      hooks.run({ hook, cwd: facts.cwd, env: { ...runFactsEnv(facts), ...extraEnv }, payload: { ...facts, ...payload } });
    return {
      async beforeIteration(iteration) {
        if (hooks.has('before_iteration')) await call('before_iteration', { RALPH_ITERATION: String(iteration) }, { iteration });
      },
      async afterIteration(iteration, decision) {
        if (!hooks.has('after_iteration')) return undefined;
        return call('after_iteration', { RALPH_ITERATION: String(iteration), RALPH_DECISION: decision }, { iteration, decision });
      },
      async end(result) {
        if (hooks.has('on_outcome')) {
          await call(
            'on_outcome',
            { RALPH_OUTCOME: result.outcome, RALPH_EXIT_CODE: String(result.exitCode), RALPH_REASON: result.reason, RALPH_ITERATION: String(result.iterations) },
            { outcome: result.outcome, exitCode: result.exitCode, reason: result.reason, result },
          );
        }
        await notifier.flush();
      },
    };
  };
}
