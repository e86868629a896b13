// `ralph validate <plan.md…>`: checks every plan given and lists every problem (docs/commands.md#ralph-validate).
import type { Command } from 'commander';
import { EXIT_CODES } from '../contract.js';
import { InvalidInputError, formatProblem, type Problem } from '../errors.js';
import type { RegisterCommand } from './context.js';

export type PlanCheck =
  | { path: string; valid: true; id: string; tasks: number; warnings: string[] }
  | { path: string; valid: false; problems: Problem[] };

/**
 * Checks each plan on its own; paths are reported as given. A folder stands for its `*.md` plans,
 * as in `ralph batch` (not recursing; names starting with `_` or `.` skipped).
 */
export async function validatePlans(args: string[]): Promise<PlanCheck[]> {
  // Loaded here, not at the top: every command's module is read at start-up.
  const { loadPlan } = await import('../plan/index.js');
  const { listFolder } = await import('../batch/plan-list.js');
  const { statSync } = await import('node:fs');
  const checks: PlanCheck[] = [];
  const paths: string[] = [];
  for (const arg of args) {
    let folder = false;
    try {
      folder = statSync(arg).isDirectory();
    } catch {
      // not there: loadPlan says so
    }
    if (!folder) {
      paths.push(arg);
      continue;
    }
    const found = await listFolder(arg);
    if (found.length === 0) checks.push({ path: arg, valid: false, problems: [{ file: arg, message: 'folder holds no *.md plans' }] });
    paths.push(...found);
  }
  for (const path of paths) {
    try {
      const plan = await loadPlan(path);
      checks.push({ path, valid: true, id: plan.id, tasks: plan.tasks.length, warnings: plan.warnings });
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      checks.push({ path, valid: false, problems: error.problems });
    }
  }
  return checks;
}

export const registerValidate: RegisterCommand = (program: Command, ctx) => {
  program
    .command('validate')
    .description('check plans: front matter, <tasks>, every problem listed (exit 0 or 64); unknown keys are warnings')
    .argument('<plans...>', 'plan files (.md), or folders of *.md plans')
    .action(async (paths: string[]) => {
      const checks = await validatePlans(paths);
      for (const check of checks) {
        if (check.valid) {
          ctx.stdout.write(`ok  ${check.path}  (${check.id}, ${check.tasks} ${check.tasks === 1 ? 'task' : 'tasks'})\n`);
          for (const warning of check.warnings) ctx.stderr.write(`${check.path}: warning: ${warning}\n`);
        } else {
          for (const problem of check.problems) ctx.stderr.write(`${formatProblem(problem)}\n`);
        }
      }
      ctx.exitCode = checks.every((c) => c.valid) ? 0 : EXIT_CODES.usage;
    });
};
