// What "progress" means to the stall breaker (docs/overnight.md): a change to the working tree or
// HEAD, or to the plan's Progress section. Each is reduced to one hash taken when an iteration
// starts and again when it ends; equal hashes mean the agent changed nothing. Files are compared
// by content (a file rewritten with the same bytes is no change), and the files ralph itself is
// writing — its run directory, and its own output when that was redirected into the tree
// (`ralph exec … > ralph.log`, `nohup.out`) — are left out: their growth is not the agent's work.
import { execFile } from 'node:child_process';
import { createHash, type Hash } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readdirSync, readlinkSync, readSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { RUN_FILES } from '../contract.js';
import { realPath } from '../util/real-path.js';
import { extractSection } from '../plan/index.js';

/** Outside a repository the tree is walked; past this many entries the rest is not looked at. */
const MAX_WALKED = 20_000;
/** Bytes of file content hashed per fingerprint; past it, a file stands for itself by size and time. */
const MAX_CONTENT_BYTES = 256 * 1024 * 1024;
export const SKIPPED_DIRS: ReadonlySet<string> = new Set(['.git', RUN_FILES.root, 'node_modules']);

function run(cwd: string, args: string[], into: Hash): Promise<void> {
  return new Promise((resolve) => {
    const child = execFile('git', args, { cwd, encoding: 'buffer', maxBuffer: 256 * 1024 * 1024, timeout: 30_000 }, (error, stdout) => {
      if (!error) into.update(stdout);
      resolve();
    });
    child.stdin?.end();
  });
}

/**
 * Files ralph's own stdout and stderr go to, when they are regular files (Linux: /proc/self/fd),
 * as real paths. Elsewhere, or when they are a terminal or a pipe, none.
 */
export function ownOutputFiles(): string[] {
  const out: string[] = [];
  for (const fd of [1, 2]) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (isAbsolute(target) && lstatSync(target).isFile() && !out.includes(target)) out.push(target);
    } catch {
      // no /proc, or not a file
    }
  }
  return out;
}

/** What ralph writes itself, as real paths: never the agent's progress. */
interface OwnFiles {
  files: readonly string[];
  /** Directories whose whole content is ralph's (a run directory given with --run-dir). */
  dirs: readonly string[];
}

function isOwn(path: string, own: OwnFiles): boolean {
  if (own.files.length === 0 && own.dirs.length === 0) return false;
  const p = realPath(path);
  return own.files.includes(p) || own.dirs.some((d) => p === d || p.startsWith(d + sep));
}

/** A file by its content (within the budget), else by its size and time; a link by its target. */
function fileLine(path: string, shown: string, info: Stats, budget: { bytes: number }): string {
  if (info.isSymbolicLink()) {
    let target = '';
    try {
      target = readlinkSync(path);
    } catch {
      // gone
    }
    return `${shown}\0link\0${target}\n`;
  }
  if (!info.isFile()) return `${shown}\0${info.isDirectory() ? 'dir' : 'other'}\0${info.mode}\n`;
  if (info.size > budget.bytes) return `${shown}\0${info.size}\0${info.mtimeMs}\0${info.mode}\n`;
  budget.bytes -= info.size;
  const hash = createHash('sha256');
  let fd: number | undefined;
  try {
    // O_NONBLOCK: an agent that swapped the file for a FIFO a moment ago must not hang the loop.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    const buf = Buffer.allocUnsafe(Math.min(info.size, 1024 * 1024) || 1);
    let n: number;
    while ((n = readSync(fd, buf, 0, buf.length, null)) > 0) hash.update(buf.subarray(0, n));
  } catch {
    hash.update('unreadable');
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  return `${shown}\0${hash.digest('hex')}\0${info.mode}\n`;
}

/** Untracked files are not in `git diff`: their content stands for them. */
async function untracked(cwd: string, into: Hash, own: OwnFiles, budget: { bytes: number }): Promise<void> {
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
    const path = join(cwd, name);
    if (isOwn(path, own)) continue;
    try {
      names.update(fileLine(path, name, lstatSync(path), budget));
    } catch {
      names.update(`${name}\0gone\n`);
    }
  }
  into.update(names.digest());
}

function walk(dir: string, into: Hash, own: OwnFiles, left: { entries: number; bytes: number }): void {
  let entries: string[];
  try {
    entries = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of entries) {
    if (left.entries-- <= 0) return;
    if (SKIPPED_DIRS.has(name)) continue;
    const path = join(dir, name);
    if (isOwn(path, own)) continue;
    let info: Stats;
    try {
      info = lstatSync(path);
    } catch {
      continue;
    }
    into.update(fileLine(path, path, info, left));
    if (info.isDirectory()) walk(path, into, own, left);
  }
}

/**
 * One hash of HEAD, the working tree's changes and the plan's Progress section. `head` is HEAD
 * as the caller just read it (src/loop/git.ts); null (no repository, or no commit yet) walks the
 * tree. `own`: the files and folders ralph itself writes (absolute paths), left out.
 */
export async function workFingerprint(
  cwd: string,
  planText: string | undefined,
  head: string | null,
  own: { files?: readonly string[]; dirs?: readonly string[] } = {},
): Promise<string> {
  const mine: OwnFiles = { files: (own.files ?? []).map(realPath), dirs: (own.dirs ?? []).map(realPath) };
  const hash = createHash('sha256');
  hash.update(`progress\0${(planText !== undefined && extractSection(planText, 'Progress')) || ''}\0`);
  if (head !== null) {
    // HEAD, then tracked changes by content (staged or not) in the whole repository but ralph's
    // own files, then what is new and untracked.
    hash.update(`head\0${head}\0`);
    const here = realPath(cwd);
    const excluded = [...mine.files, ...mine.dirs].map((p) => relative(here, p)).filter((p) => p !== '' && !isAbsolute(p));
    await run(cwd, ['diff', 'HEAD', '--binary', '--no-color', '--no-ext-diff', '--', ':/', ...excluded.map((p) => `:(exclude,literal)${p}`)], hash);
    await untracked(cwd, hash, mine, { bytes: MAX_CONTENT_BYTES });
  } else {
    walk(cwd, hash, mine, { entries: MAX_WALKED, bytes: MAX_CONTENT_BYTES });
  }
  return hash.digest('hex');
}
