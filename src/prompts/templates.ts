// Prompt text lives in template files (top-level prompts/), loaded at run time; `--prompts DIR`
// overrides any of them by file name.
import { existsSync } from 'node:fs';
import { readRegularFileSync } from '../util/read-regular-file.js';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { packageRoot } from '../util/package-root.js';

export const TEMPLATE_NAMES = [
  'instructions-full',
  'instructions-condensed',
  'message-first',
  'message-continue',
  'message-resume',
  'feedback-completion-rejected',
  'feedback-blocker-rejected',
  'feedback-permission-denied',
  'feedback-near-miss',
  'feedback-task-check',
  'feedback-task-regressed',
] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];
export type Templates = Record<TemplateName, string>;

/** The package's own prompts/ folder. */
export const BUILTIN_PROMPTS_DIR = join(packageRoot(), 'prompts');

export function loadTemplates(overrideDir?: string): Templates {
  if (overrideDir !== undefined && !existsSync(overrideDir)) {
    throw new UsageError(`--prompts ${overrideDir}: no such folder`, `It should hold any of: ${TEMPLATE_NAMES.map((n) => `${n}.md`).join(', ')}.`);
  }
  const out = {} as Templates;
  for (const name of TEMPLATE_NAMES) {
    const own = overrideDir ? join(overrideDir, `${name}.md`) : undefined;
    const path = own && existsSync(own) ? own : join(BUILTIN_PROMPTS_DIR, `${name}.md`);
    try {
      out[name] = readRegularFileSync(path, 1024 * 1024).toString('utf8');
    } catch (error) {
      throw new UsageError(`--prompts: cannot read ${path}: ${(error as Error).message}`, 'A template is a regular Markdown file of at most 1 MB.');
    }
  }
  return out;
}

/** Replaces {{name}}; a name the caller does not know is left as written. */
export function render(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (whole, key: string) => (Object.hasOwn(vars, key) ? String(vars[key]) : whole));
}
