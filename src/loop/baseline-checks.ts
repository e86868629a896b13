// Checks that can fail (docs/plans.md#checks-that-can-fail): before the first iteration every
// check runs once on the untouched tree. One that already passes cannot tell done from not done
// (a test filter that matches nothing): it is *vacuous*, warned about, or refused with
// `strict_checks: true`.
import { runCommandCheck, type CheckResult, type CommandCheckOptions } from './checks.js';
import { checkTasks, taskCheckName, type TaskState } from './task-checks.js';

export interface Baseline {
  /** Every check's result on the untouched tree. */
  results: CheckResult[];
  /** One message per check that already passes. */
  vacuous: string[];
  /** One message per check that is not a command the shell could find (exit 127). */
  notCommands: string[];
  /** How long the tasks' checks took together, for choosing when they run. */
  taskChecksMs: number;
  /** Stopped by an interrupt before every check ran. */
  aborted: boolean;
}

/** Runs the plan's verify commands and every task's check (recording the tasks' states as of iteration 0). */
export async function runBaseline(verify: readonly string[], tasks: TaskState[], options: CommandCheckOptions): Promise<Baseline> {
  const out: Baseline = { results: [], vacuous: [], notCommands: [], taskChecksMs: 0, aborted: false };
  for (const command of verify) {
    const r = await runCommandCheck(`verify: ${command}`, command, options);
    out.results.push(r);
    if (r.aborted) return { ...out, aborted: true };
    if (r.ok) out.vacuous.push(`verify command \`${command}\` already passes before anything was changed: it is vacuous, it cannot tell done from not done; make it test what the plan adds`);
    else if (r.exitCode === 127) out.notCommands.push(`verify command \`${command}\` is not a command the shell can run (exit 127)`);
  }
  const round = await checkTasks(tasks, 0, options);
  out.results.push(...round.results);
  out.taskChecksMs = round.results.reduce((sum, r) => sum + (r.durationMs ?? 0), 0);
  if (round.results.some((r) => r.aborted)) return { ...out, aborted: true };
  for (const task of tasks) {
    if (task.status === 'passing') {
      out.vacuous.push(`the check of task "${task.name}" (\`${task.verify}\`) already passes before anything was changed: it is vacuous, it cannot tell done from not done; make it test what the task adds`);
    } else if (round.results.find((r) => r.check === taskCheckName(task.name))?.exitCode === 127) {
      out.notCommands.push(`the <verify> of task "${task.name}" (\`${task.verify.slice(0, 80)}\`) is not a command the shell can run (exit 127): write a command there, or set task_checks: off`);
    }
  }
  return out;
}
