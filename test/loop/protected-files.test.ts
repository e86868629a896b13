import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parsePlan } from '../../src/plan/index.js';
import { fingerprintProtected, globToRegExp, listedFiles, tamperCheck } from '../../src/loop/protected-files.js';
import { acceptanceGate } from '../../src/loop/acceptance-gate.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-protect-'));
  mkdirSync(join(dir, 'test', 'unit'), { recursive: true });
  writeFileSync(join(dir, 'test', 'a.test.sh'), 'test -f a\n');
  writeFileSync(join(dir, 'test', 'unit', 'b.test.sh'), 'test -f b\n');
  writeFileSync(join(dir, 'README.md'), 'hi\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const planWith = (frontMatter: string, tasks = '<task><name>A</name></task>') => parsePlan(`---\n${frontMatter}\n---\n<tasks>${tasks}</tasks>\n`, join(dir, 'p.md')).plan!;

describe('the tamper guard', () => {
  it('globs: ** spans folders, * stays in one', () => {
    expect(globToRegExp('test/**').test('test/unit/b.test.sh')).toBe(true);
    expect(globToRegExp('test/*.sh').test('test/unit/b.test.sh')).toBe(false);
    expect(globToRegExp('**/*.test.sh').test('test/a.test.sh')).toBe(true);
    expect(globToRegExp('a.b').test('axb')).toBe(false);
  });

  it('fingerprints the files a protect glob matches; a change or a deletion fails the check, naming the rule', () => {
    const guarded = fingerprintProtected(dir, planWith('protect: [test/**]'));
    expect(Object.keys(guarded.files).sort()).toEqual(['test/a.test.sh', 'test/unit/b.test.sh']);
    expect(tamperCheck(dir, guarded)).toMatchObject({ ok: true, reason: '2 protected file(s) unchanged' });
    writeFileSync(join(dir, 'test', 'a.test.sh'), 'exit 0\n');
    rmSync(join(dir, 'test', 'unit', 'b.test.sh'));
    writeFileSync(join(dir, 'test', 'new.test.sh'), 'added tests are fine\n');
    const r = tamperCheck(dir, guarded);
    expect(r.ok).toBe(false);
    expect(r.reason).toContain('test/a.test.sh: changed from 1 line(s), 10 bytes to 1 line(s), 7 bytes; it now begins: "exit 0');
    expect(r.reason).toContain('test/unit/b.test.sh: deleted');
    expect(r.reason).toContain('The rule: protect: test/**');
    expect(r.reason).not.toContain('new.test.sh');
  });

  it('a task\'s <files> entry is protected when a check runs it', () => {
    expect(listedFiles('src/a.ts, `test/a.test.sh`\n docs/x.md')).toEqual(['src/a.ts', 'test/a.test.sh', 'docs/x.md']);
    const plan = planWith('verify: [echo]', '<task><name>A</name><files>README.md, test/a.test.sh</files><verify>sh test/a.test.sh</verify></task>');
    expect(Object.keys(fingerprintProtected(dir, plan).files)).toEqual(['test/a.test.sh']);
  });

  it('the gate checks protected files before the verify commands', async () => {
    const guarded = fingerprintProtected(dir, planWith('protect: [test/**]'));
    writeFileSync(join(dir, 'test', 'a.test.sh'), 'exit 0\n');
    const r = await acceptanceGate({ planId: 'p', summaryPath: join(dir, 's.json'), requireSummary: false, verify: ['touch ran'], cwd: dir, runStartedAtMs: 0, guarded });
    expect(r.complete).toBe(false);
    expect(r.checks!.map((c) => c.check)).toEqual(['protected files']);
  });
});
