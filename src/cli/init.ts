// `ralph init [plan.md]`: a first plan from the template, `.ralph/.gitignore`, a commented
// ralph.config.yaml, and the next three commands (docs/first-hour.md). It never overwrites a file.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { kindOf } from '../util/read-regular-file.js';
import { CONFIG_TEMPLATE } from '../config/template.js';
import { CONFIG_FILE, RUN_FILES } from '../contract.js';
import { UsageError } from '../errors.js';
import { ignoreEverythingIn } from '../runs/git-ignore.js';
import { findProjectRoot, ralphDir } from '../runs/project-root.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import { packageRoot } from '../util/package-root.js';
import type { RegisterCommand } from './context.js';

export const DEFAULT_PLAN_FILE = 'plans/first-plan.md';

export interface InitResult {
  plan: string;
  gitignore: string;
  /** Whether .ralph/.gitignore was written now (false: one was there already and is kept). */
  wroteGitignore: boolean;
  /** Whether ralph.config.yaml was written now (false: the project has one, kept as it is). */
  wroteConfig: boolean;
  /** The config file, relative to the current folder (the project's root may be above it). */
  config: string;
  next: string[];
}

/**
 * Refuses, before anything is written, a folder to write into whose path holds something else
 * than folders (`plans` a regular file): nothing is half done, and the message says what is in the way.
 */
function assertCanHoldFiles(dir: string, cwd: string, hint: string): void {
  for (let at = dir; ; at = dirname(at)) {
    let stats;
    try {
      stats = statSync(at);
    } catch {
      if (dirname(at) === at) return;
      continue; // not there yet: it will be made
    }
    if (stats.isDirectory()) return;
    const shown = relative(cwd, at).startsWith('..') ? at : relative(cwd, at);
    throw new UsageError(`${shown} is ${kindOf(stats)}, not a folder: ralph init cannot write into it`, hint);
  }
}

export function initCommand(planArg: string, cwd: string): InitResult {
  const plan = resolve(cwd, planArg);
  if (!plan.endsWith('.md')) throw new UsageError(`${planArg}: a plan is a Markdown file; give a name ending in .md`);
  if (existsSync(plan)) throw new UsageError(`${planArg} already exists; ralph init never overwrites a file`, 'Give another name: ralph init plans/<name>.md');
  assertCanHoldFiles(dirname(plan), cwd, 'Move it aside, or name the plan elsewhere: ralph init <folder>/<name>.md');
  assertCanHoldFiles(resolve(cwd, RUN_FILES.root), cwd, 'Move it aside: .ralph/ is where ralph keeps its runs.');
  const id = basename(plan, '.md').replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'plan';
  const title = id.replace(/[-_.]+/g, ' ').replace(/^./, (c) => c.toUpperCase());
  const template = readFileSync(join(packageRoot(), 'templates', 'plan.md'), 'utf8');
  writeFileAtomicSync(plan, template.replaceAll('{{id}}', id).replaceAll('{{title}}', title));
  // Both at the project's root, where every command looks for them (project-root.ts).
  const root = ralphDir(cwd);
  const wroteGitignore = !existsSync(join(root, '.gitignore'));
  ignoreEverythingIn(root);
  const config = join(findProjectRoot(cwd), CONFIG_FILE);
  const wroteConfig = !existsSync(config);
  if (wroteConfig) writeFileAtomicSync(config, CONFIG_TEMPLATE);
  const shown = relative(cwd, plan).startsWith('..') ? plan : relative(cwd, plan);
  return {
    plan: shown,
    gitignore: relative(cwd, join(root, '.gitignore')),
    config: relative(cwd, config),
    wroteGitignore,
    wroteConfig,
    next: [
      `$EDITOR ${shown}                # the objective, the tasks, the verify commands`,
      `ralph validate ${shown}`,
      `ralph exec ${shown} --agent claude      # or --agent codex, or any agent CLI after --`,
    ],
  };
}

export const registerInit: RegisterCommand = (program, ctx) => {
  program
    .command('init')
    .description('start using ralph here: a plan from the template, .ralph/.gitignore, a commented ralph.config.yaml, and the next commands')
    .argument('[plan]', 'the plan file to write', DEFAULT_PLAN_FILE)
    .action((planArg: string) => {
      const r = initCommand(planArg, process.cwd());
      ctx.stdout.write(
        [
          `wrote ${r.plan} (a plan to fill in)`,
          `${r.wroteGitignore ? 'wrote' : 'kept'} ${r.gitignore} (run state stays out of git)`,
          `${r.wroteConfig ? 'wrote' : 'kept'} ${r.config} (agents, defaults, notifications, hooks; all commented out)`,
          '', 'next:', ...r.next.map((c, i) => `  ${i + 1}. ${c}`), ''].join('\n'),
      );
    });
};
