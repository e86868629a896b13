import { describe, expect, it } from 'vitest';
import { checkSummary, summarySchema } from '../../src/plan/index.js';

const good = () => ({
  plan: 'demo',
  status: 'complete',
  tasks: [
    { name: 'Task 1', status: 'done', notes: 'with tests' },
    { name: 'Task 2', status: 'skipped' },
  ],
});

describe('checkSummary accepts', () => {
  it('the minimal summary', () => {
    const result = checkSummary(good(), 'demo');
    expect(result).toEqual({ ok: true, summary: good() });
  });

  it('every optional field, and keys the schema does not know (kept as they are)', () => {
    const value = {
      ...good(),
      verification: [{ check: 'npm test', passed: true }],
      files_changed: ['src/a.ts'],
      next_steps: ['ship it'],
      agent: { model: 'x' },
      tasks: [{ name: 'Task 1', status: 'done', commit: 'abc123' }],
    };
    const result = checkSummary(value, 'demo');
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.summary).toEqual(value);
  });
});

describe('checkSummary rejects, naming the field and what is wrong', () => {
  it.each<[string, unknown, string]>([
    ['a task that is not done', { ...good(), tasks: [{ name: 'T', status: 'pending' }] }, 'tasks[0].status: expected "done" or "skipped", got "pending"'],
    ['another plan', { ...good(), plan: 'x' }, 'plan: is "x", expected "demo"'],
    ['no tasks', { ...good(), tasks: [] }, 'tasks: at least one task is required'],
    ['an unfinished status', { ...good(), status: 'partial' }, 'status: expected "complete", got "partial"'],
    ['a missing status', { plan: 'demo', tasks: good().tasks }, 'status: expected "complete", got nothing'],
    ['a missing plan', { status: 'complete', tasks: good().tasks }, 'plan: is missing (expected a string)'],
    ['a numeric plan', { ...good(), plan: 7 }, 'plan: expected a string, got 7'],
    ['tasks that are not a list', { ...good(), tasks: 'all' }, 'tasks: expected an array, got "all"'],
    ['a task without a name', { ...good(), tasks: [{ status: 'done' }] }, 'tasks[0].name: is missing (expected a string)'],
    ['a task with an empty name', { ...good(), tasks: [{ name: '', status: 'done' }] }, 'tasks[0].name: must not be empty'],
    ['a task that is not an object', { ...good(), tasks: ['T'] }, 'tasks[0]: expected an object, got "T"'],
    ['notes that are not text', { ...good(), tasks: [{ name: 'T', status: 'done', notes: 3 }] }, 'tasks[0].notes: expected a string, got 3'],
    ['a check whose passed is not a boolean', { ...good(), verification: [{ check: 'npm test', passed: 'yes' }] }, 'verification[0].passed: expected a boolean, got "yes"'],
    ['files_changed that is not a list of strings', { ...good(), files_changed: ['a', 1] }, 'files_changed[1]: expected a string, got 1'],
    ['next_steps that is a string', { ...good(), next_steps: 'later' }, 'next_steps: expected an array, got "later"'],
    ['an array', [good()], 'summary: expected a JSON object, got an array'],
    ['null', null, 'summary: expected a JSON object, got null'],
    ['a string', 'done', 'summary: expected a JSON object, got "done"'],
  ])('%s', (_, value, reason) => {
    expect(checkSummary(value, 'demo')).toEqual({ ok: false, reason });
  });

  it('lists every problem at once, the wrong plan first', () => {
    const result = checkSummary({ plan: 'other', status: 'draft', tasks: [{ name: 'T', status: 'todo' }] }, 'demo');
    expect(result).toEqual({
      ok: false,
      reason: 'plan: is "other", expected "demo"; status: expected "complete", got "draft"; tasks[0].status: expected "done" or "skipped", got "todo"',
    });
  });

  it('keeps a huge untrusted value short in the reason', () => {
    const result = checkSummary({ ...good(), status: 'x'.repeat(100_000) }, 'demo');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason.length).toBeLessThan(120);
  });
});

describe('summarySchema', () => {
  it('is the zod schema behind checkSummary (plan id aside)', () => {
    expect(summarySchema.safeParse({ ...good(), plan: 'anything' }).success).toBe(true);
    expect(summarySchema.safeParse({ ...good(), tasks: [] }).success).toBe(false);
  });
});
