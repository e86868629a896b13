// What a worker keeps in its workdir (docs/queue.md): `repos/` one bare clone per remote,
// `checkouts/<clone>/<n>` the worktrees it reuses, `runs/<batch>/<plan>[.<n>]` the run directories
// it leaves behind, and `worker.lock` while it runs. Named here once, for the worker and for
// those who look from outside (`ralph clean --workdir`).
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { WORKDIR_LOCK } from './workdir-lock.js';

export const WORKDIR_PARTS = { repos: 'repos', checkouts: 'checkouts', runs: 'runs', lock: WORKDIR_LOCK } as const;

/** `ralph worker`'s workdir when no --workdir is given. */
export function defaultWorkdir(): string {
  return join(homedir(), '.ralph', 'worker');
}

/** Whether `dir` looks like a worker's workdir: a worker made its clones or checkouts there, or runs there now. */
export function isWorkdir(dir: string): boolean {
  return [WORKDIR_PARTS.repos, WORKDIR_PARTS.checkouts, WORKDIR_PARTS.lock].some((part) => existsSync(join(dir, part)));
}
