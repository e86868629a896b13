// Whether a config file found by the search may be obeyed (docs/config.md#trusting-a-config-file).
// Its hooks run commands as the user, so a file someone else could have put there is refused, as
// git refuses a repository owned by someone else (CVE-2022-24765): one owned by another user
// (root excepted), or one that others can write, or that sits in a folder others can write, unless
// the user listed its folder as safe (RALPH_SAFE_DIRS, or the user-level safe-dirs file).
import type { Stats } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, join } from 'node:path';
import { readRegularFileSync } from '../util/read-regular-file.js';
import { realPath } from '../util/real-path.js';

/** Who "the user" is; the process's own ids unless a test says otherwise. */
export interface Identity {
  uid: number;
  gid: number;
}

/** Folders listed as safe: the user-level file's lines are read as RALPH_SAFE_DIRS's entries are. */
export function safeDirsFile(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME ? env.XDG_CONFIG_HOME : join(env.HOME || homedir(), '.config');
  return join(base, 'ralph', 'safe-dirs');
}

const MAX_SAFE_DIRS_BYTES = 64 * 1024;

function safeDirs(env: NodeJS.ProcessEnv): string[] {
  const listed = (env.RALPH_SAFE_DIRS ?? '').split(delimiter);
  let fromFile: string[] = [];
  try {
    fromFile = readRegularFileSync(safeDirsFile(env), MAX_SAFE_DIRS_BYTES)
      .toString('utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => !l.startsWith('#'));
  } catch {
    // none (or unreadable): nothing listed there
  }
  return [...listed, ...fromFile].map((d) => d.trim()).filter((d) => d !== '');
}

/** Others than `who` can write it: anyone (o+w), or a group that is not the user's own (g+w). */
function othersCanWrite(stats: Stats, who: Identity): boolean {
  return (stats.mode & 0o002) !== 0 || ((stats.mode & 0o020) !== 0 && stats.gid !== who.gid);
}

/**
 * Why the config file `file` (whose stats are `fileStats`, taken on the open descriptor, and
 * whose folder's are `dirStats`) must not be obeyed; undefined when it may be.
 */
export function distrust(file: string, fileStats: Stats, dirStats: Stats, env: NodeJS.ProcessEnv, who: Identity): string | undefined {
  const dir = dirname(file);
  const reasons: string[] = [];
  if (fileStats.uid !== who.uid && fileStats.uid !== 0) reasons.push(`it is owned by another user (uid ${fileStats.uid}; you are uid ${who.uid})`);
  if (othersCanWrite(fileStats, who)) reasons.push('others can write it');
  if (othersCanWrite(dirStats, who)) reasons.push(`its folder ${dir} can be written by others (mode ${(dirStats.mode & 0o7777).toString(8)})`);
  if (reasons.length === 0) return undefined;
  const listed = safeDirs(env);
  if (listed.includes('*')) return undefined;
  const at = realPath(dir);
  if (listed.some((d) => realPath(d) === at)) return undefined;
  return reasons.join('; ');
}

/** The hint of a refusal: how to trust the file, or how not to use it. */
export function trustHint(file: string, env: NodeJS.ProcessEnv): string {
  return (
    `if you trust it, list its folder as safe: RALPH_SAFE_DIRS=${dirname(file)} (folders separated by "${delimiter}"), ` +
    `or a line "${dirname(file)}" in ${safeDirsFile(env)}; or name the file to use with --config; ` +
    `or put a ${basename(file)} of your own in the working directory (the nearest one is used)`
  );
}

/** The user's ids; undefined where the system has none (Windows): no file is refused there. */
export function currentIdentity(): Identity | undefined {
  if (process.getuid === undefined || process.getgid === undefined) return undefined;
  return { uid: process.getuid(), gid: process.getgid() };
}
