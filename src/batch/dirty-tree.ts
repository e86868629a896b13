// Batches run from the tree the user sees (docs/first-hour.md). Worktrees are made from a commit,
// so a plan edited but not committed, or an agent script never added, would be silently missing
// from them: such files are named before anything runs and the batch refuses, unless
// --allow-dirty, where the worktrees start from a snapshot commit of the working tree instead.
import { mkdtemp, rm } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { git } from '../util/git.js';
import { withFallbackIdentity } from './commit-plan-branch.js';

export interface BatchInput {
  /** Absolute path. */
  path: string;
  /** What it is to the batch: "plan", "agent command of plan x". */
  role: string;
}

export interface DirtyInput extends BatchInput {
  /** Relative to the repository. */
  rel: string;
  state: 'modified' | 'untracked' | 'ignored' | 'added' | 'deleted' | 'changed';
}

/** Files named in a command (the program and any argument that is a file), from `cwd`. */
export function filesOfCommand(command: readonly string[], cwd: string): string[] {
  return command.map((a) => resolve(cwd, a)).filter((p) => existsSync(p) && statSync(p).isFile());
}

function stateOf(xy: string): DirtyInput['state'] {
  if (xy === '??') return 'untracked';
  if (xy === '!!') return 'ignored';
  if (xy.includes('D')) return 'deleted';
  if (xy[0] === 'A') return 'added';
  if (xy.includes('M')) return 'modified';
  return 'changed';
}

/** The inputs (inside `repo`) whose working-tree version differs from HEAD's, or that HEAD lacks. */
export async function dirtyInputs(repo: string, inputs: BatchInput[]): Promise<DirtyInput[]> {
  const inside = inputs
    .map((i) => ({ ...i, rel: relative(repo, i.path) }))
    .filter((i) => i.rel !== '' && !i.rel.startsWith('..') && !isAbsolute(i.rel));
  if (inside.length === 0) return [];
  const out = await git(repo, ['--literal-pathspecs', 'status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignored=matching', '--', ...new Set(inside.map((i) => i.rel))], { untrimmed: true });
  const states = new Map<string, DirtyInput['state']>();
  const entries = out.split('\0');
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.length < 4) continue;
    const xy = entry.slice(0, 2);
    states.set(entry.slice(3), stateOf(xy));
    if (xy[0] === 'R' || xy[0] === 'C') i++; // a rename's source path follows
  }
  const dirty: DirtyInput[] = [];
  for (const i of inside) {
    const state = states.get(i.rel);
    if (state) dirty.push({ ...i, state });
  }
  return dirty;
}

/**
 * A commit of the working tree as it is (tracked changes and untracked files that git does not
 * ignore), on top of HEAD, made through a private index: the user's index, branch and files are
 * left untouched.
 */
export async function snapshotWorkingTree(repo: string, message: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'ralph-index-'));
  try {
    const env = await withFallbackIdentity(repo, { ...process.env, GIT_INDEX_FILE: join(dir, 'index') });
    await git(repo, ['read-tree', 'HEAD'], { env });
    await git(repo, ['add', '--all'], { env });
    const tree = await git(repo, ['write-tree'], { env });
    return await git(repo, ['commit-tree', tree, '-p', 'HEAD', '-m', message], { env });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function headCommit(repo: string): Promise<string> {
  return git(repo, ['rev-parse', 'HEAD^{commit}']);
}
