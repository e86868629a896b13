import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { headSha, rootAndHead } from '../../src/loop/git.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'ralph-git-')));
  dirs.push(dir);
  return dir;
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', ...args], { cwd, encoding: 'utf8' }).trim();
}

function repo(commits: number): string {
  const dir = tempDir();
  git(dir, 'init', '-q');
  for (let i = 0; i < commits; i++) git(dir, 'commit', '-q', '--allow-empty', '-m', `c${i}`);
  mkdirSync(join(dir, 'sub', 'deeper'), { recursive: true });
  return dir;
}

describe('rootAndHead: the top level and HEAD a run starts from', () => {
  it('in a repository with no commit yet: the top level, and no HEAD', async () => {
    const dir = repo(0);
    expect(await rootAndHead(dir)).toEqual({ root: dir, head: null });
    expect(await rootAndHead(join(dir, 'sub', 'deeper'))).toEqual({ root: dir, head: null });
  });

  it('in a subfolder of a repository with commits: the top level and HEAD', async () => {
    const dir = repo(2);
    const head = git(dir, 'rev-parse', 'HEAD');
    expect(await rootAndHead(dir)).toEqual({ root: dir, head });
    expect(await rootAndHead(join(dir, 'sub', 'deeper'))).toEqual({ root: dir, head });
  });

  it('in a worktree: the worktree is the top level, HEAD is its own', async () => {
    const dir = repo(1);
    const wt = join(tempDir(), 'wt');
    git(dir, 'worktree', 'add', '-q', '-b', 'other', wt);
    git(wt, 'commit', '-q', '--allow-empty', '-m', 'on the worktree');
    expect(await rootAndHead(wt)).toEqual({ root: wt, head: git(wt, 'rev-parse', 'HEAD') });
    expect(git(wt, 'rev-parse', 'HEAD')).not.toBe(git(dir, 'rev-parse', 'HEAD'));
  });

  it('outside a repository: neither', async () => {
    expect(await rootAndHead(tempDir())).toEqual({ root: null, head: null });
  });

  it('inside .git (no work tree): no top level, but HEAD as headSha reads it', async () => {
    const dir = repo(1);
    const inside = join(dir, '.git');
    expect(await headSha(inside)).toBe(git(dir, 'rev-parse', 'HEAD'));
    expect(await rootAndHead(inside)).toEqual({ root: null, head: await headSha(inside) });
  });
});
