// What "progress" means to the stall breaker (docs/overnight.md): a change to the working tree or
// HEAD, or to the plan's Progress section. Each is reduced to one hash taken when an iteration
// starts and again when it ends; equal hashes mean the agent changed nothing.
import { execFile } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { RUN_FILES } from '../contract.js';
import { extractSection } from '../plan/index.js';

/** Outside a repository the tree is walked; past this many entries the rest is not looked at. */
const MAX_WALKED = 20_000;
const SKIPPED_DIRS = new Set(['.git', RUN_FILES.root, 'node_modules']);

function run(cwd: string, args: string[], into: Hash): Promise<void> {
  return new Promise((resolve) => {
    const child = execFile('git', args, { cwd, encoding: 'buffer', maxBuffer: 256 * 1024 * 1024, timeout: 30_000 }, (error, stdout) => {
      if (!error) into.update(stdout);
      resolve();
    });
    child.stdin?.end();
  });
}

function statLine(path: string, info: Stats): string {
  return `${path}\0${info.size}\0${info.mtimeMs}\0${info.mode}\n`;
}

/** Untracked files are not in `git diff`: their names, sizes and times stand for their content. */
async function untrackedStats(cwd: string, into: Hash): Promise<void> {
  const names = createHash('sha256');
  const listed = await new Promise<string | null>((resolve) => {
    execFile('git', ['ls-files', '-z', '--others', '--exclude-standard'], { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 30_000 }, (error, stdout) =>
      resolve(error ? null : stdout),
    );
  });
  if (listed === null) return;
  for (const name of listed.split('\0').slice(0, MAX_WALKED)) {
    // ralph's own run files change every iteration; they are never the agent's progress.
    if (name === '' || name.startsWith(`${RUN_FILES.root}/`)) continue;
    try {
      names.update(statLine(name, lstatSync(join(cwd, name))));
    } catch {
      names.update(`${name}\0gone\n`);
    }
  }
  into.update(names.digest());
}

function walk(dir: string, into: Hash, budget: { left: number }): void {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of entries) {
    if (budget.left-- <= 0) return;
    if (SKIPPED_DIRS.has(name)) continue;
    const path = join(dir, name);
    let info: Stats;
    try {
      info = lstatSync(path);
    } catch {
      continue;
    }
    into.update(statLine(path, info));
    if (info.isDirectory()) walk(path, into, budget);
  }
}

/**
 * One hash of HEAD, the working tree's changes and the plan's Progress section. `head` is HEAD
 * as the caller just read it (src/loop/git.ts); null (no repository, or no commit yet) walks the tree.
 */
export async function workFingerprint(cwd: string, planText: string | undefined, head: string | null): Promise<string> {
  const hash = createHash('sha256');
  hash.update(`progress\0${(planText !== undefined && extractSection(planText, 'Progress')) || ''}\0`);
  if (head !== null) {
    // HEAD, then tracked changes by content (staged or not), then what is new and untracked.
    hash.update(`head\0${head}\0`);
    await run(cwd, ['diff', 'HEAD', '--binary', '--no-color', '--no-ext-diff'], hash);
    await untrackedStats(cwd, hash);
  } else {
    walk(cwd, hash, { left: MAX_WALKED });
  }
  return hash.digest('hex');
}
