// `ralph validate` as a user runs it: the built CLI (npm test builds dist/ first).
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runRalph, type Ran } from '../helpers/run-ralph.js';
import { isRunning } from '../helpers/processes.js';

const VALID = 'test/fixtures/plans/valid';
const BROKEN = 'test/fixtures/plans/broken';

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
    expect(ran).toMatchObject({ code: 0, stderr: '' });
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

  it('is a usage error (64) without a plan', async () => {
    const ran = await ralph('validate');
    expect(ran.code).toBe(64);
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain("missing required argument 'plans'");
  });
});
