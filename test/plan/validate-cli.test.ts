// `ralph validate` as a user runs it: the built CLI (npm test builds dist/ first).
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runRalph, type Ran } from '../helpers/run-ralph.js';
import { isRunning } from '../helpers/processes.js';

const VALID = 'test/fixtures/plans/valid';
const BROKEN = 'test/fixtures/plans/broken';
const NO_CHECK = 'the plan has no check: completion will be accepted on the summary alone; add `verify:` to the front matter or a <verify> command to a task';

function ralph(...args: string[]): Promise<Ran> {
  return runRalph(args);
}

beforeAll(() => {
  if (!existsSync(resolve(ROOT, 'dist/cli/validate.js'))) {
    throw new Error('dist/ is not built: run `npx tsc -p tsconfig.build.json` (npm test does it) first');
  }
});

describe('ralph validate', () => {
  it('prints ok with the id and task count for each valid plan and exits 0', async () => {
    const ran = await ralph('validate', `${VALID}/gsd-style.md`, `${VALID}/minimal.md`);
    expect(ran).toMatchObject({ code: 0, stderr: `${VALID}/minimal.md: warning: ${NO_CHECK}\n` });
    expect(ran.stdout).toBe(`ok  ${VALID}/gsd-style.md  (02-03-rate-limit, 2 tasks)\nok  ${VALID}/minimal.md  (minimal, 1 task)\n`);
    expect(isRunning(ran.pid)).toBe(false);
  });

  it('prints warnings on stderr as "path: warning: …" and still exits 0', async () => {
    const path = `${VALID}/markdown-in-tasks.md`;
    const ran = await ralph('validate', path);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe(`ok  ${path}  (markdown-in-tasks, 2 tasks)\n`);
    expect(ran.stderr.split('\n')).toEqual([
      `${path}: warning: line 2: unknown front-matter key "phase" is ignored`,
      `${path}: warning: line 3: unknown front-matter key "wave" is ignored`,
      `${path}: warning: line 4: unknown front-matter key "depends_on" is ignored`,
      `${path}: warning: line 5: unknown front-matter key "maxIterations" is ignored (did you mean "max_iterations"?)`,
      '',
    ]);
  });

  it('lists every problem of every invalid plan as path:line: message, exits 64, no stack trace', async () => {
    const many = `${BROKEN}/many-problems.md`;
    const none = `${BROKEN}/no-tasks.md`;
    const ran = await ralph('validate', many, `${VALID}/minimal.md`, none);
    expect(ran.code).toBe(64);
    expect(ran.stdout).toBe(`ok  ${VALID}/minimal.md  (minimal, 1 task)\n`);
    expect(ran.stderr.split('\n')).toEqual([
      `${many}:2: max_iterations: expected a whole number from 1 to 10000, got 0 (a number)`,
      `${many}:3: executor: expected one of anthropic, command, got "gpt"`,
      `${many}:4: verify: expected a list of strings, got 7 (a number)`,
      `${many}:8: <tasks> is never closed; add </tasks> after the last </task>`,
      `${many}:9: task 1 has no <name>; give every task a <name>…</name>`,
      `${VALID}/minimal.md: warning: ${NO_CHECK}`,
      `${none}: no <tasks> element; list the work as <tasks><task><name>…</name><action>…</action></task></tasks>`,
      '',
    ]);
  });

  it('reports files it cannot read (missing, a directory, empty) the same way', async () => {
    const ran = await ralph('validate', 'no/such/plan.md', `${BROKEN}/empty.md`);
    expect(ran.code).toBe(64);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toBe(
      [
        'no/such/plan.md: no such file; check the path',
        `${BROKEN}/empty.md: the file is empty; a plan needs at least <tasks> with one <task><name>…</name></task>`,
        '',
      ].join('\n'),
    );
    expect(ran.stderr).not.toMatch(/\n\s+at /);
  });

  it('a folder stands for its *.md plans, each checked and reported by path (docs/first-hour.md)', async () => {
    const ran = await ralph('validate', VALID);
    expect(ran.code).toBe(0);
    const names = readdirSync(VALID).filter((n) => n.endsWith('.md') && !n.startsWith('_') && !n.startsWith('.')).sort();
    expect(names.length).toBeGreaterThan(1);
    expect(ran.stdout.trimEnd().split('\n').map((l) => l.split('  ')[1])).toEqual(names.map((n) => `${VALID}/${n}`));
    expect(ran.stderr).toContain(`${VALID}/markdown-in-tasks.md: warning: line 2: unknown front-matter key "phase" is ignored`);
  });

  it('an empty folder is a problem (64)', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'ralph-validate-'));
    const ran = await ralph('validate', empty);
    expect(ran.code).toBe(64);
    expect(ran.stderr).toBe(`${empty}: folder holds no *.md plans\n`);
  });

  it('--strict: a misspelt key and a plan without any check are errors (64); without it, warnings', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-validate-'));
    writeFileSync(join(dir, 'typo.md'), '---\nverfy: [npm test]\n---\n<tasks><task><name>A</name></task></tasks>\n');
    const lenient = await ralph('validate', join(dir, 'typo.md'));
    expect(lenient.code).toBe(0);
    expect(lenient.stderr).toContain('unknown front-matter key "verfy" is ignored (did you mean "verify"?)');
    expect(lenient.stderr).toContain('completion will be accepted on the summary alone');
    const strict = await ralph('validate', '--strict', join(dir, 'typo.md'));
    expect(strict.code).toBe(64);
    expect(strict.stdout).toBe('');
    expect(strict.stderr.split('\n')).toEqual([
      `${join(dir, 'typo.md')}: line 2: unknown front-matter key "verfy" is ignored (did you mean "verify"?)`,
      `${join(dir, 'typo.md')}: ${NO_CHECK}`,
      '',
    ]);
  });

  it('--run-checks runs every check where it is: one that already passes is vacuous (a warning; 64 with strict_checks)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-validate-'));
    writeFileSync(join(dir, 'p.md'), '---\nverify: [test -f built]\n---\n<tasks><task><name>A</name><verify>true</verify></task></tasks>\n');
    writeFileSync(join(dir, 's.md'), '---\nstrict_checks: true\nverify: [test -f built]\n---\n<tasks><task><name>A</name><verify>true</verify></task></tasks>\n');
    const ran = await ralph('validate', '--run-checks', '--cwd', dir, join(dir, 'p.md'));
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain('the check of task "A" (`true`) already passes before anything was changed: it is vacuous');
    expect(ran.stderr).toContain(`ran 2 check(s) in ${dir}: 1 fail(s) as it should before the work, 1 already pass(es) (vacuous)`);
    const strict = await ralph('validate', '--run-checks', '--cwd', dir, join(dir, 's.md'));
    expect(strict.code).toBe(64);
    expect(strict.stderr).toContain('task "A" (`true`) already passes');
  });

  it('is a usage error (64) without a plan', async () => {
    const ran = await ralph('validate');
    expect(ran.code).toBe(64);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain("missing required argument 'plans'");
  });
});
