// What counts as progress (docs/overnight.md, "The stall breaker"): content, not sizes and times;
// never the files ralph itself writes.
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { workFingerprint } from '../../src/loop/work-fingerprint.js';

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function repo(): string {
  dir = mkdtempSync(join(tmpdir(), 'ralph-fp-'));
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: dir, stdio: 'ignore' });
  git('init', '-q');
  writeFileSync(join(dir, 'tracked.txt'), 'one\n');
  git('add', '-A');
  git('commit', '-qm', 'initial');
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
}

describe.each([
  ['in a repository', () => repo()],
  ['outside one', () => ((dir = mkdtempSync(join(tmpdir(), 'ralph-fp-'))), null)],
])('workFingerprint %s', (_where, setUp) => {
  it('an untracked file rewritten with the same bytes (a new time) is no change; other bytes are', async () => {
    const head = setUp();
    writeFileSync(join(dir, 'notes.txt'), 'same');
    const before = await workFingerprint(dir, undefined, head);
    writeFileSync(join(dir, 'notes.txt'), 'same');
    utimesSync(join(dir, 'notes.txt'), new Date(2030, 0, 1), new Date(2030, 0, 1));
    expect(await workFingerprint(dir, undefined, head)).toBe(before);
    writeFileSync(join(dir, 'notes.txt'), 'sane');
    expect(await workFingerprint(dir, undefined, head)).not.toBe(before);
  });

  it("ralph's own log in the tree (its stdout redirected there) and its run directory are left out", async () => {
    const head = setUp();
    const own = { files: [join(dir, 'ralph.log')], dirs: [join(dir, 'run-here')] };
    writeFileSync(join(dir, 'ralph.log'), 'started\n');
    mkdirSync(join(dir, 'run-here'));
    writeFileSync(join(dir, 'run-here', 'events.jsonl'), '{}\n');
    const before = await workFingerprint(dir, undefined, head, own);
    appendFileSync(join(dir, 'ralph.log'), 'iteration 2 started\n');
    appendFileSync(join(dir, 'run-here', 'events.jsonl'), '{}\n');
    expect(await workFingerprint(dir, undefined, head, own)).toBe(before);
    // Without knowing it is ralph's, the same append is a change.
    expect(await workFingerprint(dir, undefined, head)).not.toBe(await workFingerprint(dir, undefined, head, own));
  });
});

it("a tracked file that is ralph's own log is left out of the diff too", async () => {
  const head = repo();
  const own = { files: [join(dir, 'tracked.txt')] };
  const before = await workFingerprint(dir, undefined, head, own);
  appendFileSync(join(dir, 'tracked.txt'), 'log line\n');
  expect(await workFingerprint(dir, undefined, head, own)).toBe(before);
  expect(await workFingerprint(dir, undefined, head)).not.toBe(before);
});
