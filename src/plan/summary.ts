// The summary file an agent writes when it claims completion (docs/plans.md#the-summary-file). The reason a summary
// is refused is what the agent is told next iteration, so it names the field and what is wrong.
import { z } from 'zod';

const taskEntry = z.looseObject({
  name: z.string().min(1),
  status: z.enum(['done', 'skipped']),
  notes: z.string().optional(),
});

export const summarySchema = z.looseObject({
  plan: z.string(),
  status: z.literal('complete'),
  tasks: z.array(taskEntry).min(1),
  verification: z.array(z.looseObject({ check: z.string(), passed: z.boolean() })).optional(),
  files_changed: z.array(z.string()).optional(),
  next_steps: z.array(z.string()).optional(),
});

export type Summary = z.infer<typeof summarySchema>;

export type SummaryCheck = { ok: true; summary: Summary } | { ok: false; reason: string };

type Key = PropertyKey;

function pathText(path: readonly Key[]): string {
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : `${out ? '.' : ''}${String(key)}`;
  return out || 'summary';
}

function valueAt(root: unknown, path: readonly Key[]): unknown {
  let v = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<Key, unknown>)[key];
  }
  return v;
}

/** The agent's value, shown briefly: its output is untrusted and may be huge. */
function shown(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function typeName(expected: string): string {
  return expected === 'object' ? 'an object' : expected === 'array' ? 'an array' : `a ${expected}`;
}

function describeIssue(issue: z.core.$ZodIssue, root: unknown): string {
  const where = pathText(issue.path);
  const got = valueAt(root, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      if (got === undefined) return `${where}: is missing (expected ${typeName(issue.expected)})`;
      return `${where}: expected ${typeName(issue.expected)}, got ${shown(got)}`;
    case 'invalid_value': {
      const choices = issue.values.map((v) => JSON.stringify(v)).join(' or ');
      return `${where}: expected ${choices}, got ${shown(got)}`;
    }
    case 'too_small':
      if (issue.path.length === 1 && issue.path[0] === 'tasks') return 'tasks: at least one task is required';
      if (issue.origin === 'string') return `${where}: must not be empty`;
      return `${where}: needs at least ${String(issue.minimum)} item(s)`;
    default:
      return `${where}: ${issue.message}`;
  }
}

/**
 * Checks a parsed summary.json against the schema and the plan it must name. Every problem is
 * listed, so one rejected completion is enough to fix them all.
 */
export function checkSummary(value: unknown, planId: string): SummaryCheck {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, reason: `summary: expected a JSON object, got ${shown(value)}` };
  }
  const parsed = summarySchema.safeParse(value);
  const reasons = parsed.success ? [] : parsed.error.issues.map((issue) => describeIssue(issue, value));
  const plan = (value as Record<string, unknown>).plan;
  if (typeof plan === 'string' && plan !== planId) reasons.unshift(`plan: is ${shown(plan)}, expected ${JSON.stringify(planId)}`);
  if (reasons.length > 0 || !parsed.success) return { ok: false, reason: reasons.join('; ') };
  return { ok: true, summary: parsed.data };
}
