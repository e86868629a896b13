// What the coordinator checks in the repository before enqueuing (docs/queue.md): a remote the
// workers can clone, reachable now; the commit to run already on it; and every plan committed in
// that commit, since workers read the plan from their checkout, not from this machine.
import { realpath } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { QUEUE } from '../contract.js';
import { UsageError } from '../errors.js';
import type { BatchPlan } from '../batch/index.js';
import { git, GitError } from '../util/git.js';
import { chooseRemote, tryGit } from '../util/git-remote.js';

export interface RepoRemote {
  /** The repository's top folder on this machine. */
  top: string;
  remoteName: string;
  url: string;
  commit: string;
}

export async function checkRepoRemote(cwd: string, timeoutMs: number = QUEUE.remoteCheckTimeoutMs): Promise<RepoRemote> {
  const top = await tryGit(cwd, ['rev-parse', '--show-toplevel']);
  if (!top) throw new UsageError(`a queued batch runs plans from a git repository, and ${cwd} is not in one`, 'run ralph batch --queue inside the repository the plans work on');
  const commit = await tryGit(top, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  if (!commit) throw new UsageError(`${top} has no commit yet, so workers have nothing to check out`, 'commit and push once');
  const remoteName = await chooseRemote(top);
  if (!remoteName) throw new UsageError(`${top} has no remote the workers could clone (no upstream, no "origin")`, 'add one: git remote add origin <url>, and push');
  let url = (await tryGit(top, ['remote', 'get-url', remoteName])) ?? '';
  // A remote given as a relative path means nothing on another machine, or in a worker's workdir.
  if (url && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !/^[^/]+@[^/]+:/.test(url) && !isAbsolute(url)) url = resolve(top, url);
  let refs: string;
  try {
    refs = await git(top, ['ls-remote', url], { timeoutMs });
  } catch (error) {
    const why = error instanceof GitError ? error.message.replace(/^git ls-remote failed: /, '') : String(error);
    throw new UsageError(`the remote ${remoteName} (${url}) cannot be reached: ${why}`, 'workers clone from it and push to it: fix the remote, or your access to it');
  }
  const onRemote =
    refs.split('\n').some((line) => line.startsWith(`${commit}\t`)) ||
    ((await tryGit(top, ['for-each-ref', '--contains', commit, '--format=%(refname)', `refs/remotes/${remoteName}/`])) ?? '') !== '';
  if (!onRemote) {
    throw new UsageError(`HEAD (${commit.slice(0, 12)}) is not on the remote ${remoteName}: workers check out that commit`, `push it first: git push ${remoteName} HEAD`);
  }
  return { top, remoteName, url, commit };
}

/** Each plan's path inside the repository, checked to be committed unchanged in `commit`. */
export async function planPathsInCommit(remote: RepoRemote, plans: BatchPlan[]): Promise<Map<string, string>> {
  const paths = new Map<string, string>();
  const problems: string[] = [];
  const top = await realpath(remote.top);
  for (const plan of plans) {
    const rel = relative(top, await realpath(plan.path));
    if (rel.startsWith('..') || isAbsolute(rel)) problems.push(`${plan.path}: outside the repository ${remote.top}; workers read plans from their checkout`);
    else paths.set(plan.id, rel.split(sep).join('/'));
  }
  if (paths.size > 0) {
    // Two git calls for the whole batch, not two per plan.
    const list = [...paths.values()];
    const split = (out: string | null) => new Set((out ?? '').split('\0').filter(Boolean));
    const committed = split(await tryGit(top, ['ls-tree', '-r', '-z', '--name-only', remote.commit, '--', ...list]));
    const changed = split(await tryGit(top, ['diff', '--name-only', '-z', remote.commit, '--', ...list]));
    for (const plan of plans) {
      const posix = paths.get(plan.id);
      if (posix === undefined || (committed.has(posix) && !changed.has(posix))) continue;
      problems.push(`${plan.path}: ${committed.has(posix) ? 'has changes that are not committed' : 'not committed'}; workers read the plan from commit ${remote.commit.slice(0, 12)}`);
    }
  }
  if (problems.length) {
    throw new UsageError(`cannot queue the batch:\n${problems.map((p) => `  ${p}`).join('\n')}`, `commit the plans and push: git push ${remote.remoteName} HEAD`);
  }
  return paths;
}
