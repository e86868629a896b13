// The tasks' checks as a run goes (docs/plans.md#task-checks): what a new run's first look at its
// checks found, the files they depend on fingerprinted, a round after an iteration, and what a
// round tells the next prompt (the first failing task, regressions).
import { render } from '../prompts/templates.js';
import type { Baseline } from './baseline-checks.js';
import { runCheckOptions } from './checks.js';
import { fingerprintProtected, globToRegExp } from './protected-files.js';
import type { RunContext } from './run-context.js';
import { checkTasks, firstFailing, tasksVerified, type TaskRound } from './task-checks.js';

/** A new run's checks: what the baseline found, the tamper guard's fingerprints, when the tasks' checks run. */
export function startChecks(ctx: RunContext, baseline: Baseline | undefined): void {
  const { state, plan, config } = ctx;
  for (const v of baseline?.vacuous ?? []) ctx.warn(v);
  for (const c of baseline?.notCommands ?? []) ctx.warn(c);
  if (plan.config.allowCheckChanges !== true) {
    state.guarded = fingerprintProtected(config.cwd, plan, config.protect);
    const files = Object.keys(state.guarded.files);
    const empty = [...(plan.config.protect ?? []), ...config.protect].filter((g) => !files.some((f) => globToRegExp(g).test(f)));
    if (empty.length) ctx.warn(`protect: ${empty.join(', ')} matches no file in ${config.cwd}: nothing is protected by it`);
  }
  if (state.tasks?.length) {
    const when = state.taskCheckMode === 'iteration' ? 'after every iteration and at the gate' : 'at the gate';
    const passing = state.tasks.filter((t) => t.status === 'passing').map((t) => t.name);
    ctx.emit({ type: 'tasks', iteration: 0, verified: tasksVerified(state.tasks), passing, regressed: [], mode: state.taskCheckMode ?? 'gate', detail: `the tasks' own checks run ${when}` });
  }
}

/** The tasks' checks after an iteration without a claim, when they run after every iteration. */
export async function checkTasksAfter(ctx: RunContext, n: number): Promise<TaskRound | undefined> {
  const { state, config } = ctx;
  if (state.taskCheckMode !== 'iteration' || !state.tasks?.length || ctx.runSignal.aborted) return undefined;
  ctx.status('checking');
  const round = await checkTasks(state.tasks, n, runCheckOptions(config, state.runId, ctx.runSignal, ctx.verifySandbox));
  if (round.results.some((r) => r.aborted)) return undefined;
  ctx.ledger.checks.push(...round.results);
  noteTaskRound(ctx, n, round, true);
  return round;
}

/** Tells what a round of task checks found: regressions always, the first failing task when asked. */
export function noteTaskRound(ctx: RunContext, n: number, round: TaskRound, nameFirstFailing: boolean): void {
  const tasks = ctx.state.tasks ?? [];
  ctx.emit({ type: 'tasks', iteration: n, verified: tasksVerified(tasks), passing: round.newlyPassing, regressed: round.regressions });
  if (round.regressions.length > 0) {
    ctx.warn(`regression: ${round.regressions.map((t) => `task "${t}"`).join(', ')} passed before and fail${round.regressions.length === 1 ? 's' : ''} now`, n);
    const lines = tasks.filter((t) => round.regressions.includes(t.name)).map((t) => `- "${t.name}": ${t.reason ?? ''}`);
    ctx.pendingFeedback.push(render(ctx.templates['feedback-task-regressed'], { tasks: lines.join('\n') }));
  }
  const failing = firstFailing(tasks);
  if (nameFirstFailing && failing) {
    ctx.pendingFeedback.push(
      render(ctx.templates['feedback-task-check'], { verified: tasksVerified(tasks), task: failing.name, reason: failing.reason ?? '', tail: failing.tail || '(no output)' }),
    );
  }
}
