// plan.md → Plan, or every problem found in it (docs/plans.md: a plan that cannot be read or
// validated is refused, with every problem listed, before anything runs).
import { basename, dirname, extname, resolve } from 'node:path';
import { InvalidInputError, type Problem } from '../errors.js';
import { readRegularFile } from '../util/read-regular-file.js';
import { planIdProblem } from './plan-id.js';
import { parseFrontMatterYaml, splitFrontMatter } from './front-matter.js';
import { defaultConfig, readPlanConfig } from './plan-config.js';
import { extractSection } from './sections.js';
import { parseBody } from './tasks.js';
import type { Plan } from './types.js';

/** `path` names the file in problems as given; Plan.path is its absolute form. */
export function parsePlan(text: string, path: string): { plan?: Plan; problems: Problem[] } {
  const problems: Problem[] = [];
  const add = (message: string, line?: number): void => {
    problems.push(line === undefined ? { file: path, message } : { file: path, line, message });
  };
  if (text.replace(/^\uFEFF/, '').trim() === '') {
    add('the file is empty; a plan needs at least <tasks> with one <task><name>…</name></task>');
    return { problems };
  }

  const split = splitFrontMatter(text);
  let config = defaultConfig();
  const warnings: string[] = [];
  const strictWarnings: string[] = [];
  if (split.unclosed) add('front matter opened by "---" is never closed; add a line "---" after its last key', 1);
  if (split.yaml !== undefined) {
    const yaml = parseFrontMatterYaml(split.yaml, split.yamlLine);
    for (const e of yaml.errors) add(`front matter is not valid YAML: ${e.message}`, e.line);
    // Keys of a document with syntax errors are unreliable; report the syntax first.
    if (yaml.errors.length === 0) {
      const read = readPlanConfig(yaml.doc, yaml.lineOf, split.yamlLine);
      for (const p of read.problems) add(p.message, p.line);
      warnings.push(...read.warnings);
      strictWarnings.push(...read.unknownKeys);
      config = read.config;
    }
  }

  const body = parseBody(split.body, split.bodyLine);
  for (const p of body.problems) add(p.message, p.line);
  warnings.push(...body.warnings);
  const absolute = resolve(path);
  const stem = basename(absolute, extname(absolute));
  if (config.id === undefined && problems.length === 0) {
    const why = planIdProblem(stem);
    if (why !== undefined) add(`the plan id comes from the file name "${stem.slice(0, 60)}", which ${why}; set "id:" in the front matter`);
  }
  if (problems.length > 0) {
    // In file order, which is how people fix them; problems with no line (a missing element) last.
    problems.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
    return { problems };
  }

  const dir = dirname(absolute);
  const plan: Plan = {
    path: absolute,
    dir,
    id: config.id ?? stem,
    text,
    body: split.body,
    config,
    tasks: body.tasks,
    summaryPath: config.summary !== undefined ? resolve(dir, config.summary) : resolve(dir, `${stem}.summary.json`),
    warnings,
    strictWarnings,
  };
  if (config.verify.length === 0 && !body.tasks.some((t) => t.verify !== undefined)) {
    const none = `${NO_CHECK_WARNING}; add \`verify:\` to the front matter or a <verify> command to a task`;
    warnings.push(none);
    strictWarnings.push(none);
  }
  if (body.verification !== undefined) plan.verification = body.verification;
  const progress = extractSection(split.body, 'Progress');
  if (progress !== undefined) plan.progress = progress;
  const observations = extractSection(split.body, 'Observations');
  if (observations !== undefined) plan.observations = observations;
  return { plan, problems };
}

/** Said at `ralph validate` and at the start of a run of a plan without any check (docs/plans.md#checks-that-can-fail). */
export const NO_CHECK_WARNING = 'the plan has no check: completion will be accepted on the summary alone';

/** A plan is a document, not a data set: past this it is not a plan (and is not read into memory). */
export const MAX_PLAN_BYTES = 10 * 1024 * 1024;

function unreadable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOTREG':
      if ((error as { kind?: string }).kind === 'a directory') return 'is a directory; give the path of a plan .md file';
      return `${(error as Error).message.replace(/^.* is not/, 'is not')}; save the plan to a file and pass its path`;
    case 'EFBIG':
      return `is too large for a plan (more than ${MAX_PLAN_BYTES / 1024 / 1024} MB)`;
    case 'ENOENT':
      return 'no such file; check the path';
    case 'EISDIR':
      return 'is a directory; give the path of a plan .md file';
    case 'EACCES':
    case 'EPERM':
      return 'cannot be read (permission denied)';
    default:
      return `cannot be read: ${(error as Error).message}`;
  }
}

/** Reads and validates a plan; throws InvalidInputError listing every problem. */
export async function loadPlan(path: string): Promise<Plan> {
  let text: string;
  try {
    text = (await readRegularFile(path, MAX_PLAN_BYTES)).toString('utf8');
  } catch (error) {
    throw new InvalidInputError([{ file: path, message: unreadable(error) }], 'invalid plan');
  }
  const { plan, problems } = parsePlan(text, path);
  if (!plan) throw new InvalidInputError(problems, 'invalid plan');
  return plan;
}
