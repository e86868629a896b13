import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findRun, listAllRuns } from '../../src/runs/find-run.js';
import { findProjectRoot } from '../../src/runs/project-root.js';

const dir = mkdtempSync(join(tmpdir(), 'ralph-find-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function project(): string {
  const root = mkdtempSync(join(dir, 'p-'));
  mkdirSync(join(root, '.git'));
  for (const d of ['.ralph/runs/20261122-021500-a1b2', '.ralph/batches/b1/runs/c-arch', '.ralph/batches/b1/runs/only', '.ralph/batches/b2/runs/c-arch', 'src/deep']) {
    mkdirSync(join(root, d), { recursive: true });
  }
  return root;
}

describe('the project root', () => {
  it('is the nearest folder up with .git (a folder or a file) or ralph.config.yaml, else the folder itself', () => {
    const root = project();
    expect(findProjectRoot(join(root, 'src', 'deep'))).toBe(root);
    const worktree = join(root, 'src', 'wt');
    mkdirSync(worktree);
    writeFileSync(join(worktree, '.git'), 'gitdir: elsewhere\n');
    expect(findProjectRoot(join(worktree))).toBe(worktree);
    writeFileSync(join(root, 'src', 'ralph.config.yaml'), '');
    expect(findProjectRoot(join(root, 'src', 'deep'))).toBe(join(root, 'src'));
    const bare = mkdtempSync(join(tmpdir(), 'ralph-no-root-'));
    try {
      expect(findProjectRoot(bare)).toBe(bare);
    } finally {
      rmSync(bare, { recursive: true });
    }
  });
});

describe('findRun: every id listAllRuns gives', () => {
  it('resolves from any subfolder, single runs and batch plan runs alike', () => {
    const root = project();
    const ids = listAllRuns(join(root, 'src', 'deep')).map((r) => r.id);
    // Newest first: batch ids sort by time too.
    expect(ids).toEqual(['20261122-021500-a1b2', 'b2/c-arch', 'b1/only', 'b1/c-arch']);
    for (const r of listAllRuns(root)) expect(findRun(join(root, 'src', 'deep'), r.id).dir).toBe(r.paths.dir);
  });

  it("a batch plan run's own name works while one batch alone has it; otherwise the batches are named", () => {
    const root = project();
    expect(findRun(root, 'only').dir).toBe(join(root, '.ralph/batches/b1/runs/only'));
    expect(() => findRun(root, 'c-arch')).toThrow('"c-arch" names a plan run in 2 batches: b2/c-arch, b1/c-arch');
  });

  it('refuses what is not an id, and says where ids come from', () => {
    const root = project();
    expect(() => findRun(root, '../x')).toThrow(/is not a run id/);
    expect(() => findRun(root, 'b1/../../x')).toThrow(/is not a run id/);
    try {
      findRun(root, 'nope');
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toBe(`no run "nope" in ${join(root, '.ralph')}`);
      expect((e as { hint?: string }).hint).toContain('`ralph runs`');
    }
  });
});
