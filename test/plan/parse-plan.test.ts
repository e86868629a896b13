import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InvalidInputError } from '../../src/errors.js';
import { loadPlan, parsePlan, type Plan } from '../../src/plan/index.js';

const NO_CHECK = 'the plan has no check: completion will be accepted on the summary alone; add `verify:` to the front matter or a <verify> command to a task';
const FIXTURES = resolve(import.meta.dirname, '../fixtures/plans');
const valid = (name: string): string => join(FIXTURES, 'valid', name);
const broken = (name: string): string => join(FIXTURES, 'broken', name);

async function problemsOf(path: string) {
  try {
    await loadPlan(path);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidInputError);
    return (error as InvalidInputError).problems;
  }
  throw new Error(`${path} was accepted`);
}

describe('loadPlan on valid plans', () => {
  it('reads the shared GSD-style sample completely', async () => {
    const plan = await loadPlan(valid('gsd-style.md'));
    expect(plan.path).toBe(valid('gsd-style.md'));
    expect(plan.dir).toBe(join(FIXTURES, 'valid'));
    expect(plan.id).toBe('02-03-rate-limit');
    expect(plan.config).toEqual({
      id: '02-03-rate-limit',
      maxIterations: 12,
      maxBailouts: 2,
      requireSummary: true,
      verify: ['npm test -- rate-limit'],
      blockers: { reject: ['architectural_decision'] },
    });
    expect(plan.tasks).toEqual([
      {
        name: 'Task 1: token bucket',
        type: 'auto',
        files: 'src/rate-limit/bucket.ts, test/rate-limit/bucket.test.ts',
        action: 'Implement a token bucket keyed by API key with an injectable clock.',
        verify: 'npm test -- bucket',
        done: 'Refill and burst behaviour covered by tests.',
        line: 18,
      },
      {
        name: 'Task 2: middleware',
        type: 'auto',
        files: 'src/http/middleware/rate-limit.ts',
        action: 'Apply the bucket to /api/public/*; answer 429 with Retry-After.',
        verify: 'npm test -- rate-limit',
        done: '429 with Retry-After after the 61st request in a minute.',
        line: 25,
      },
    ]);
    expect(plan.verification).toBe('- npm test passes\n- No route under /api/public is left unlimited');
    expect(plan.progress).toBe('');
    expect(plan.observations).toBe('');
    expect(plan.summaryPath).toBe(join(FIXTURES, 'valid', 'gsd-style.summary.json'));
    expect(plan.warnings).toEqual([]);
    expect(plan.body.startsWith('# Phase 2, plan 3')).toBe(true);
    expect(plan.text.startsWith('---\nid: 02-03-rate-limit')).toBe(true);
  });

  it('defaults id to the stem and has no optional parts when the plan has none', async () => {
    const plan = await loadPlan(valid('minimal.md'));
    expect(plan.id).toBe('minimal');
    expect(plan.config).toEqual({ requireSummary: true, verify: [], blockers: { reject: [] } });
    expect(plan.tasks).toEqual([{ name: 'Only task', line: 4 }]);
    expect(plan.verification).toBeUndefined();
    expect(plan.progress).toBeUndefined();
    expect(plan.observations).toBeUndefined();
    expect(plan.summaryPath).toBe(join(FIXTURES, 'valid', 'minimal.summary.json'));
  });

  it('reads every front-matter key into camelCase config', async () => {
    const plan = await loadPlan(valid('all-keys.md'));
    expect(plan.config).toEqual({
      id: 'all-keys',
      executor: 'command',
      command: ['node', 'agent.js', '--fast'],
      streamFormat: 'claude-json',
      model: 'claude-sonnet-4-5',
      maxIterations: 7,
      maxBailouts: 0,
      maxCostUsd: 2.5,
      maxRuntimeMs: 90 * 60_000,
      silenceTimeoutMs: 45_000,
      summary: 'out/all.summary.json',
      requireSummary: false,
      verify: ['npm test'],
      blockers: { reject: ['architectural_decision', 'needs_credentials'] },
    });
    expect(plan.summaryPath).toBe(join(FIXTURES, 'valid', 'out', 'all.summary.json'));
    expect(plan.tasks[0]).toMatchObject({ type: 'checkpoint:human-verify', action: 'Do the first thing.\n  - nested note' });
  });

  it('keeps Markdown with < and & in tasks, and ignores tags in code, inline code and comments', async () => {
    const plan = await loadPlan(valid('markdown-in-tasks.md'));
    expect(plan.tasks.map((t) => t.name)).toEqual(['Use Map<string, number> & friends', 'Second']);
    expect(plan.tasks[0]!.action).toBe(
      "Replace the `<name>` field with a lookup:\n\n```ts\nconst m = new Map<string, number>();\nif (a < b && c > d) m.set('x', 1);\n```",
    );
    expect(plan.tasks[0]!.verify).toBe('npx vitest run && echo "a < b"');
    expect(plan.tasks[0]!.line).toBe(20);
    expect(plan.progress).toBe('- [ ] step one\n```sh\n# not a heading\n```\n### Detail kept inside Progress');
    expect(plan.observations).toBe('Nothing yet.');
  });

  it('takes tags inside an indented fence in a task as text, and entities as written', async () => {
    const plan = await loadPlan(valid('tags-in-task-code.md'));
    expect(plan.tasks).toEqual([
      {
        name: 'Document the plan format',
        type: 'manual',
        action:
          'Add this example to the README:\n\n```xml\n<tasks>\n  <task><name>Example</name></task>\n</tasks>\n```\n\nEntities like &amp; and &lt; stay as written.',
        done: 'README shows the example.',
        line: 4,
      },
    ]);
  });

  it('warns about unknown front-matter keys with their line, suggesting the known key for a typo', async () => {
    const plan = await loadPlan(valid('markdown-in-tasks.md'));
    expect(plan.warnings).toEqual([
      'line 2: unknown front-matter key "phase" is ignored',
      'line 3: unknown front-matter key "wave" is ignored',
      'line 4: unknown front-matter key "depends_on" is ignored',
      'line 5: unknown front-matter key "maxIterations" is ignored (did you mean "max_iterations"?)',
    ]);
    expect(plan.config.maxIterations).toBeUndefined();
  });

  it('suggests a known key for a three-letter front-matter key, as for the config file', () => {
    const { plan } = parsePlan('---\nids: x\n---\n<tasks><task><name>A</name></task></tasks>\n', 'p.md');
    expect(plan!.warnings).toEqual(['line 2: unknown front-matter key "ids" is ignored (did you mean "id"?)', NO_CHECK]);
    expect(plan!.strictWarnings).toEqual(plan!.warnings);
  });

  it('a front-matter key named like an Object property is an unknown key, not a crash', () => {
    const { plan, problems } = parsePlan('---\nconstructor: 1\ntoString: x\n---\n<tasks><task><name>A</name></task></tasks>\n', 'p.md');
    expect(problems).toEqual([]);
    expect(plan!.warnings).toEqual(['line 2: unknown front-matter key "constructor" is ignored', 'line 3: unknown front-matter key "toString" is ignored', NO_CHECK]);
  });

  it('reads CRLF plans with the same lines and text as LF ones', async () => {
    const plan = await loadPlan(valid('crlf.md'));
    expect(plan.id).toBe('crlf');
    expect(plan.tasks).toEqual([{ name: 'CRLF task', action: 'line one\nline two', line: 5 }]);
    expect(plan.progress).toBe('done a');
  });

  it('warns about duplicate task names', () => {
    const { plan } = parsePlan('<tasks>\n<task><name>A</name></task>\n<task><name>A</name></task>\n</tasks>\n', 'dup.md');
    expect(plan?.warnings).toEqual([
      'line 3: task name "A" is also used on line 2; summaries name tasks, so make names unique',
      NO_CHECK,
    ]);
    // A duplicate name is not something --strict refuses.
    expect(plan?.strictWarnings).toEqual([NO_CHECK]);
  });

  it('a plan with a check in its front matter or in one task has no "no check" warning', () => {
    for (const text of ['---\nverify: npm test\n---\n<tasks><task><name>A</name></task></tasks>\n', '<tasks><task><name>A</name><verify>npm test</verify></task><task><name>B</name></task></tasks>\n']) {
      expect(parsePlan(text, 'p.md').plan!.warnings).toEqual([]);
    }
  });

  it('reads task_checks, strict_checks, protect and allow_check_changes; refuses bad values', () => {
    const { plan } = parsePlan('---\ntask_checks: gate\nstrict_checks: true\nprotect: test/**\nallow_check_changes: false\nverify: [x]\n---\n<tasks><task><name>A</name></task></tasks>\n', 'p.md');
    expect(plan!.config).toMatchObject({ taskChecks: 'gate', strictChecks: true, protect: ['test/**'], allowCheckChanges: false });
    const bad = parsePlan('---\ntask_checks: sometimes\nprotect: [../secrets]\n---\n<tasks><task><name>A</name></task></tasks>\n', 'p.md');
    expect(bad.problems.map((p) => p.message)).toEqual([
      'task_checks: expected one of gate, iteration, off, got "sometimes"',
      'protect[0]: "../secrets" must be a path pattern inside the working directory, e.g. test/**',
    ]);
  });
});

// One fixture per documented problem: [file, line, message].
const BROKEN: [string, number | undefined, string][] = [
  ['yaml-syntax.md', 4, 'front matter is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]'],
  ['front-matter-list.md', 2, 'front matter must be a mapping of keys to values (e.g. "max_iterations: 10"), got a list'],
  ['front-matter-unclosed.md', 1, 'front matter opened by "---" is never closed; add a line "---" after its last key'],
  ['max-iterations-zero.md', 3, 'max_iterations: expected a whole number from 1 to 10000, got 0 (a number)'],
  ['max-iterations-float.md', 2, 'max_iterations: expected a whole number from 1 to 10000, got 2.5 (a number)'],
  ['max-bailouts-negative.md', 2, 'max_bailouts: expected a whole number from 0 to 1000, got -1 (a number)'],
  ['max-cost-zero.md', 2, 'max_cost_usd: expected an amount in US dollars above 0 and at most 100000, got 0 (a number)'],
  ['max-cost-string.md', 2, 'max_cost_usd: expected an amount in US dollars above 0 and at most 100000, got "five dollars"'],
  ['max-runtime-bad.md', 2, 'max_runtime: expected a duration such as 90m, 45s or 1h30m (a bare number is seconds), got "soon"'],
  ['silence-timeout-zero.md', 2, 'silence_timeout: must be from 100ms to 168h, got "0s"'],
  ['executor-unknown.md', 2, 'executor: expected one of anthropic, command, got "openai"'],
  ['stream-format-unknown.md', 2, 'stream_format: expected one of text, claude-json, codex-json, gemini-json, opencode-json, qwen-json, cursor-json, amp-json, got "json"'],
  ['command-string.md', 2, 'command: expected a list (program and arguments), e.g. [claude, -p], got "claude -p"'],
  ['command-empty.md', 2, 'command: is empty; give the program and its arguments, e.g. [claude, -p]'],
  ['command-number.md', 2, 'command[1]: expected a string, got 5 (a number); quote it: "5"'],
  ['verify-number.md', 2, 'verify[1]: expected a string, got 42 (a number); quote it: "42"'],
  ['verify-mapping.md', 2, 'verify: expected a list of strings, got a mapping'],
  ['blockers-list.md', 2, 'blockers: expected a mapping like { reject: [reason, ...] }, got a list'],
  ['blockers-no-reject.md', 2, 'blockers: has no reject list; expected a mapping like { reject: [reason, ...] }'],
  ['require-summary-yes.md', 2, 'require_summary: expected true or false, got "yes"'],
  ['summary-list.md', 2, 'summary: expected a file path relative to the plan, got a list'],
  ['id-slash.md', 2, 'id: "phase/02" may hold only letters, digits, ".", "_", "+", "@" and "-", and must start with a letter or digit (it names files)'],
  ['id-empty.md', 2, 'id: expected a non-empty string, got ""'],
  ['id-number.md', 2, 'id: expected a non-empty string, got 42 (a number); quote it: "42"'],
  ['no-tasks.md', undefined, 'no <tasks> element; list the work as <tasks><task><name>…</name><action>…</action></task></tasks>'],
  ['task-outside-tasks.md', undefined, '<task> on line 3 is outside any <tasks> element; wrap the tasks in <tasks>…</tasks>'],
  ['tasks-unclosed.md', 3, '<tasks> is never closed; add </tasks> after the last </task>'],
  ['tasks-empty.md', 3, '<tasks> holds no <task>; add at least one <task><name>…</name><action>…</action></task>'],
  ['task-no-name.md', 5, 'task 2 has no <name>; give every task a <name>…</name>'],
  ['task-empty-name.md', 4, 'task 1 has an empty <name>; write what the task is'],
  ['task-unclosed.md', 4, 'task 1 is never closed; add </task> after its last element'],
  ['child-unclosed.md', 4, '<action> in task 1 is never closed; add </action>'],
  ['verification-unclosed.md', 7, '<verification> is never closed; add </verification> after its last line'],
  ['two-tasks-elements.md', 7, 'a second <tasks> element (the first is on line 3); keep every task in one <tasks>'],
  ['empty.md', undefined, 'the file is empty; a plan needs at least <tasks> with one <task><name>…</name></task>'],
  ['blank.md', undefined, 'the file is empty; a plan needs at least <tasks> with one <task><name>…</name></task>'],
];

describe('loadPlan on broken plans', () => {
  it.each(BROKEN)('%s → line %s: %s', async (name, line, message) => {
    const path = broken(name);
    const expected = line === undefined ? { file: path, message } : { file: path, line, message };
    expect(await problemsOf(path)).toEqual([expected]);
  });

  it('lists every problem of a plan at once, in file order', async () => {
    const path = broken('many-problems.md');
    expect(await problemsOf(path)).toEqual([
      { file: path, line: 2, message: 'max_iterations: expected a whole number from 1 to 10000, got 0 (a number)' },
      { file: path, line: 3, message: 'executor: expected one of anthropic, command, got "gpt"' },
      { file: path, line: 4, message: 'verify: expected a list of strings, got 7 (a number)' },
      { file: path, line: 8, message: '<tasks> is never closed; add </tasks> after the last </task>' },
      { file: path, line: 9, message: 'task 1 has no <name>; give every task a <name>…</name>' },
    ]);
  });

  it('names the file in the error message that the CLI prints', async () => {
    await expect(loadPlan(broken('id-slash.md'))).rejects.toThrow(`invalid plan:\n  ${broken('id-slash.md')}:2: id: "phase/02" may hold only`);
  });
});

describe('loadPlan on files it cannot read', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ralph-plan-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports a missing file', async () => {
    const path = join(dir, 'nope.md');
    expect(await problemsOf(path)).toEqual([{ file: path, message: 'no such file; check the path' }]);
  });

  it('reports a directory', async () => {
    expect(await problemsOf(dir)).toEqual([{ file: dir, message: 'is a directory; give the path of a plan .md file' }]);
  });
});

describe('parsePlan', () => {
  it('reports problems with the path as given and returns no plan', () => {
    const result = parsePlan('---\nmax_bailouts: x\n---\n', 'plans/p.md');
    expect(result.plan).toBeUndefined();
    expect(result.problems).toEqual([
      { file: 'plans/p.md', line: 2, message: 'max_bailouts: expected a whole number from 0 to 1000, got "x"' },
      { file: 'plans/p.md', message: 'no <tasks> element; list the work as <tasks><task><name>…</name><action>…</action></task></tasks>' },
    ]);
  });

  it('accepts empty front matter and a byte-order mark', () => {
    const { plan, problems } = parsePlan('\uFEFF---\n---\n<tasks><task><name>A</name></task></tasks>\n', '/p/x.md');
    expect(problems).toEqual([]);
    expect(plan?.id).toBe('x');
    expect(plan?.tasks).toEqual([{ name: 'A', line: 3 }]);
  });

  it('accepts a numeric duration as seconds', () => {
    const { plan } = parsePlan('---\nmax_runtime: 90\n---\n<tasks><task><name>A</name></task></tasks>\n', 'x.md');
    expect(plan?.config.maxRuntimeMs).toBe(90_000);
  });

  it('never throws, whatever the text, and names the file in every problem', () => {
    const sample = '---\nid: a\nverify: [x]\n---\n<tasks>\n<task type="auto"><name>A</name><action>b</action></task>\n</tasks>\n## Progress\n';
    const mutated = fc.tuple(fc.nat(sample.length), fc.nat(sample.length), fc.string()).map(([a, b, s]) => {
      const [from, to] = a < b ? [a, b] : [b, a];
      return sample.slice(0, from) + s + sample.slice(to);
    });
    fc.assert(
      fc.property(fc.oneof(fc.string(), mutated), (text) => {
        const result = parsePlan(text, 'fuzz.md');
        expect(result.problems.every((p) => p.file === 'fuzz.md' && p.message.length > 0)).toBe(true);
        expect(result.plan === undefined).toBe(result.problems.length > 0);
        const plan = result.plan as Plan | undefined;
        if (plan) expect(plan.tasks.every((t) => t.name.trim() !== '' && t.line >= 1)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
