// Each task's own <verify> command, run by ralph rather than trusted to the agent
// (docs/plans.md#task-checks): a task is `pending` until its check has run, then `passing` or
// `failing` (with the tail of the output). A task that passed and fails again has regressed.
import type { Plan, TaskCheckMode } from '../plan/index.js';
import { runCommandCheck, type CheckResult, type CommandCheckOptions } from './checks.js';

export type TaskStatus = 'pending' | 'passing' | 'failing';

/** One task's check and where it stands (STATUS.json, state.json, result.json). */
export interface TaskState {
  name: string;
  verify: string;
  status: TaskStatus;
  /** While failing: how, and the tail of its output. */
  reason?: string;
  tail?: string;
  /** The iteration in which it passed first; 0: it passed before the agent did anything. */
  firstPassedIteration: number | null;
  /** The iteration its check last ran after (0: before the first). */
  checkedIteration?: number;
  /** It passed once and fails now. */
  regressed?: boolean;
}

export interface TaskRound {
  results: CheckResult[];
  /** Tasks whose check passes now and did not before: progress. */
  newlyPassing: string[];
  /** Tasks that passed before and fail now. */
  regressions: string[];
}

/** The task checks quick enough to run after every iteration, when the plan does not say (docs/plans.md#task-checks). */
export const QUICK_TASK_CHECKS_MS = 30_000;

export const taskCheckName = (task: string): string => `task: ${task}`;

/** The tasks that have a <verify> command, all pending. */
export function tasksOf(plan: Plan): TaskState[] {
  return plan.tasks.filter((t) => t.verify !== undefined && t.verify.trim() !== '').map((t) => ({ name: t.name, verify: t.verify!, status: 'pending', firstPassedIteration: null }));
}

/** `task_checks:` when given; else after every iteration when all of them ran within QUICK_TASK_CHECKS_MS before the run. */
export function chooseTaskCheckMode(given: TaskCheckMode | undefined, measuredMs: number | undefined): TaskCheckMode {
  if (given !== undefined) return given;
  return measuredMs !== undefined && measuredMs <= QUICK_TASK_CHECKS_MS ? 'iteration' : 'gate';
}

/** Runs every task's check (all of them, so each task's state is current) and records the results. */
export async function checkTasks(tasks: TaskState[], iteration: number, options: CommandCheckOptions): Promise<TaskRound> {
  const round: TaskRound = { results: [], newlyPassing: [], regressions: [] };
  for (const task of tasks) {
    const result = await runCommandCheck(taskCheckName(task.name), task.verify, options);
    round.results.push(result);
    // An interrupted check says nothing about the task.
    if (result.aborted) break;
    task.checkedIteration = iteration;
    if (result.ok) {
      if (task.status !== 'passing') round.newlyPassing.push(task.name);
      task.status = 'passing';
      task.firstPassedIteration ??= iteration;
      delete task.reason;
      delete task.tail;
      delete task.regressed;
    } else {
      if (task.firstPassedIteration !== null && task.status === 'passing') {
        round.regressions.push(task.name);
        task.regressed = true;
      }
      task.status = 'failing';
      task.reason = result.reason;
      task.tail = result.evidence ?? '';
    }
  }
  return round;
}

export function firstFailing(tasks: readonly TaskState[]): TaskState | undefined {
  return tasks.find((t) => t.status !== 'passing');
}

/** "tasks 2/3 verified": what the status line, `ralph status`, notifications and the report say. */
export function tasksVerified(tasks: readonly TaskState[]): string {
  return `tasks ${tasks.filter((t) => t.status === 'passing').length}/${tasks.length} verified`;
}

/** The gate's verdict on the tasks, from a round just run. */
export function tasksVerdict(tasks: readonly TaskState[], round: TaskRound): CheckResult {
  const failing = firstFailing(tasks);
  const durationMs = round.results.reduce((sum, r) => sum + (r.durationMs ?? 0), 0);
  if (round.results.some((r) => r.aborted)) return { check: 'tasks', ok: false, aborted: true, reason: 'the task checks were stopped because the run was interrupted', durationMs };
  if (failing === undefined) return { check: 'tasks', ok: true, reason: `${tasksVerified(tasks)}`, durationMs };
  return {
    check: 'tasks',
    ok: false,
    reason: `task "${failing.name}" is not verified (${tasksVerified(tasks)}): its check ${failing.reason ?? `\`${failing.verify}\` has not run`}; the tail of its output:\n${failing.tail || '(no output)'}`,
    durationMs,
  };
}
