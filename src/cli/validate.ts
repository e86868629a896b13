// `ralph validate <plan.md…>`: checks every plan given and lists every problem (docs/commands.md#ralph-validate).
import type { Command } from 'commander';
import { EXIT_CODES } from '../contract.js';
import { InvalidInputError, formatProblem, type Problem } from '../errors.js';
import type { RegisterCommand } from './context.js';
import { stripControlLine } from '../ui/sanitize.js';

export type PlanCheck =
  | { path: string; valid: true; id: string; tasks: number; warnings: string[] }
  | { path: string; valid: false; problems: Problem[] };

/**
 * Checks each plan on its own; paths are reported as given. A folder stands for its `*.md` plans,
 * as in `ralph batch` (not recursing; names starting with `_` or `.` skipped).
 */
export interface ValidateOptions {
  /** Unknown keys and a plan without any check are errors, not warnings. */
  strict?: boolean;
  /** Run every check once in `cwd` and report the vacuous ones (docs/plans.md#checks-that-can-fail). */
  runChecks?: boolean;
  cwd?: string;
}

export async function validatePlans(args: string[], options: ValidateOptions = {}): Promise<PlanCheck[]> {
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
      const errors = options.strict ? plan.strictWarnings : [];
      const warnings = plan.warnings.filter((w) => !errors.includes(w));
      if (options.runChecks) {
        const ran = await runChecksOf(plan, options.cwd ?? process.cwd());
        // A vacuous check is refused where the plan or the command line asks for strictness.
        if (options.strict || plan.config.strictChecks === true) errors.push(...ran.vacuous);
        else warnings.push(...ran.vacuous);
        warnings.push(...ran.notCommands, ran.summary);
      }
      if (errors.length > 0) checks.push({ path, valid: false, problems: errors.map((message) => ({ file: path, message })) });
      else checks.push({ path, valid: true, id: plan.id, tasks: plan.tasks.length, warnings });
    } catch (error) {
      if (!(error instanceof InvalidInputError)) throw error;
      checks.push({ path, valid: false, problems: error.problems });
    }
  }
  return checks;
}

async function runChecksOf(plan: import('../plan/index.js').Plan, cwd: string) {
  const { runBaseline } = await import('../loop/baseline-checks.js');
  const { tasksOf } = await import('../loop/task-checks.js');
  const tasks = plan.config.taskChecks === 'off' ? [] : tasksOf(plan);
  const baseline = await runBaseline(plan.config.verify, tasks, { cwd, ...(plan.config.verifyTimeoutMs !== undefined ? { timeoutMs: plan.config.verifyTimeoutMs } : {}) });
  const failing = baseline.results.filter((r) => !r.ok).length;
  const summary = `ran ${baseline.results.length} check(s) in ${cwd}: ${failing} fail(s) as it should before the work, ${baseline.vacuous.length} already pass(es) (vacuous)`;
  return { vacuous: baseline.vacuous, notCommands: baseline.notCommands, summary };
}

export const registerValidate: RegisterCommand = (program: Command, ctx) => {
  program
    .command('validate')
    .description('check plans: front matter, <tasks>, every problem listed (exit 0 or 64); unknown keys and a plan without checks are warnings (errors with --strict)')
    .argument('<plans...>', 'plan files (.md), or folders of *.md plans')
    .option('--strict', 'unknown front-matter keys and a plan without any check are errors (exit 64)')
    .option('--run-checks', 'run every verify command once here, on the tree as it is: one that already passes is vacuous (a warning; an error with --strict or strict_checks)')
    .option('--cwd <dir>', 'where --run-checks runs the checks (default: the current directory)')
    .action(async (paths: string[], flags: { strict?: boolean; runChecks?: boolean; cwd?: string }) => {
      const checks = await validatePlans(paths, { strict: flags.strict === true, runChecks: flags.runChecks === true, ...(flags.cwd !== undefined ? { cwd: flags.cwd } : {}) });
      for (const check of checks) {
        if (check.valid) {
          // Names and text from the plan files: through the terminal sanitizer (docs/hostile.md).
          ctx.stdout.write(`${stripControlLine(`ok  ${check.path}  (${check.id}, ${check.tasks} ${check.tasks === 1 ? 'task' : 'tasks'})`)}\n`);
          for (const warning of check.warnings) ctx.stderr.write(`${stripControlLine(`${check.path}: warning: ${warning}`)}\n`);
        } else {
          for (const problem of check.problems) ctx.stderr.write(`${stripControlLine(formatProblem(problem))}\n`);
        }
      }
      ctx.exitCode = checks.every((c) => c.valid) ? 0 : EXIT_CODES.usage;
    });
};
