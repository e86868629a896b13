// plan.md → Plan, or every problem found in it (docs/plans.md: a plan that cannot be read or
// validated is refused, with every problem listed, before anything runs).
import { readFile } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { InvalidInputError, type Problem } from '../errors.js';
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
  if (split.unclosed) add('front matter opened by "---" is never closed; add a line "---" after its last key', 1);
  if (split.yaml !== undefined) {
    const yaml = parseFrontMatterYaml(split.yaml, split.yamlLine);
    for (const e of yaml.errors) add(`front matter is not valid YAML: ${e.message}`, e.line);
    // Keys of a document with syntax errors are unreliable; report the syntax first.
    if (yaml.errors.length === 0) {
      const read = readPlanConfig(yaml.doc, yaml.lineOf, split.yamlLine);
      for (const p of read.problems) add(p.message, p.line);
      warnings.push(...read.warnings);
      config = read.config;
    }
  }

  const body = parseBody(split.body, split.bodyLine);
  for (const p of body.problems) add(p.message, p.line);
  warnings.push(...body.warnings);
  if (problems.length > 0) {
    // In file order, which is how people fix them; problems with no line (a missing element) last.
    problems.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
    return { problems };
  }

  const absolute = resolve(path);
  const dir = dirname(absolute);
  const stem = basename(absolute, extname(absolute));
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
  };
  if (body.verification !== undefined) plan.verification = body.verification;
  const progress = extractSection(split.body, 'Progress');
  if (progress !== undefined) plan.progress = progress;
  const observations = extractSection(split.body, 'Observations');
  if (observations !== undefined) plan.observations = observations;
  return { plan, problems };
}

function unreadable(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
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
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InvalidInputError([{ file: path, message: unreadable(error) }], 'invalid plan');
  }
  const { plan, problems } = parsePlan(text, path);
  if (!plan) throw new InvalidInputError(problems, 'invalid plan');
  return plan;
}
