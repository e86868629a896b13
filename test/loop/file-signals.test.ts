import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileClaims, findPrUrl, moveAside, removeStaleSignalFiles, snapshotSignalFiles } from '../../src/loop/file-signals.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-file-signals-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, content: string) => writeFileSync(join(dir, name), content);

describe('removeStaleSignalFiles', () => {
  it('removes TASK_COMPLETE, TASK_COMPLETE.md, BLOCKED.md and PR_URL, and nothing else', () => {
    for (const name of ['TASK_COMPLETE', 'TASK_COMPLETE.md', 'BLOCKED.md', 'PR_URL', 'README.md', 'plan.summary.json']) write(name, 'x');
    expect(removeStaleSignalFiles(dir).sort()).toEqual(['BLOCKED.md', 'PR_URL', 'TASK_COMPLETE', 'TASK_COMPLETE.md']);
    expect(existsSync(join(dir, 'README.md'))).toBe(true);
    expect(existsSync(join(dir, 'plan.summary.json'))).toBe(true);
    expect(existsSync(join(dir, 'TASK_COMPLETE'))).toBe(false);
    expect(removeStaleSignalFiles(dir)).toEqual([]);
  });
});

describe('fileClaims', () => {
  it('a file counts in the iteration in which it appeared', () => {
    const before = snapshotSignalFiles(dir);
    write('TASK_COMPLETE', 'done');
    const fc = fileClaims(dir, before);
    expect(fc.claims).toEqual([{ class: 'complete', name: 'TASK_COMPLETE', args: [], source: 'TASK_COMPLETE' }]);
    expect(fc.files).toEqual(['TASK_COMPLETE']);
  });

  it('an unchanged file does not count again; a changed one does', () => {
    write('TASK_COMPLETE.md', 'v1');
    const before = snapshotSignalFiles(dir);
    expect(fileClaims(dir, before).claims).toEqual([]);
    write('TASK_COMPLETE.md', 'v2');
    expect(fileClaims(dir, before).claims).toMatchObject([{ class: 'complete', name: 'TASK_COMPLETE.md' }]);
  });

  it('a removed file or a folder of that name is no claim', () => {
    write('TASK_COMPLETE', 'v1');
    const before = snapshotSignalFiles(dir);
    rmSync(join(dir, 'TASK_COMPLETE'));
    mkdirSync(join(dir, 'TASK_COMPLETE.md'));
    expect(fileClaims(dir, before).claims).toEqual([]);
  });

  it('BLOCKED.md: a blocked claim, its first line the reason, its first 5 lines the evidence', () => {
    const before = snapshotSignalFiles(dir);
    write('BLOCKED.md', 'Need the prod API key\r\ntried 1\ntried 2\ntried 3\ntried 4\ntried 5\n');
    const fc = fileClaims(dir, before);
    expect(fc.claims).toEqual([{ class: 'blocked', name: 'BLOCKED.md', args: ['Need the prod API key'], source: 'BLOCKED.md' }]);
    expect(fc.blockedEvidence).toBe('Need the prod API key\ntried 1\ntried 2\ntried 3\ntried 4');
    expect(fc.files).toEqual(['BLOCKED.md']);
  });

  it('completion files come before BLOCKED.md, TASK_COMPLETE before TASK_COMPLETE.md', () => {
    const before = snapshotSignalFiles(dir);
    write('BLOCKED.md', 'stuck');
    write('TASK_COMPLETE.md', 'done');
    write('TASK_COMPLETE', 'done');
    expect(fileClaims(dir, before).claims.map((c) => c.name)).toEqual(['TASK_COMPLETE', 'TASK_COMPLETE.md', 'BLOCKED.md']);
  });

  it('PR_URL alone is no claim', () => {
    const before = snapshotSignalFiles(dir);
    write('PR_URL', 'https://github.com/a/b/pull/1');
    expect(fileClaims(dir, before).claims).toEqual([]);
  });
});

describe('findPrUrl', () => {
  it('none: null', () => {
    write('TASK_COMPLETE', 'no link here, only https://github.com/a/b/issues/3');
    expect(findPrUrl(dir)).toBeNull();
  });

  it('the first pull request URL in TASK_COMPLETE, else in TASK_COMPLETE.md', () => {
    write('TASK_COMPLETE.md', 'see https://github.com/acme/md/pull/9');
    expect(findPrUrl(dir)).toBe('https://github.com/acme/md/pull/9');
    write('TASK_COMPLETE', 'opened https://github.com/acme/w-1.x/pull/12, then https://github.com/acme/w/pull/13');
    expect(findPrUrl(dir)).toBe('https://github.com/acme/w-1.x/pull/12');
  });

  it("PR_URL's content wins, trimmed", () => {
    write('TASK_COMPLETE', 'opened https://github.com/acme/w/pull/12');
    write('PR_URL', '  https://github.com/acme/w/pull/99  \n');
    expect(findPrUrl(dir)).toBe('https://github.com/acme/w/pull/99');
  });

  it('an empty PR_URL does not hide the URL in TASK_COMPLETE', () => {
    write('PR_URL', '\n');
    write('TASK_COMPLETE', 'https://github.com/acme/w/pull/12');
    expect(findPrUrl(dir)).toBe('https://github.com/acme/w/pull/12');
  });
});

describe('moveAside', () => {
  it('moves the named files into the folder, creating it, and skips missing ones', () => {
    write('TASK_COMPLETE', 'claim');
    const into = join(dir, '.ralph', 'runs', 'r', 'iterations', '3');
    expect(moveAside(dir, ['TASK_COMPLETE', 'TASK_COMPLETE.md'], into)).toEqual(['TASK_COMPLETE']);
    expect(existsSync(join(dir, 'TASK_COMPLETE'))).toBe(false);
    expect(readFileSync(join(into, 'TASK_COMPLETE'), 'utf8')).toBe('claim');
  });

  it('nothing to move: no folder created', () => {
    const into = join(dir, 'aside');
    expect(moveAside(dir, ['TASK_COMPLETE'], into)).toEqual([]);
    expect(existsSync(into)).toBe(false);
  });
});
