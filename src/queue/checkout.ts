// A worker's checkouts (docs/queue.md): one bare clone per remote under `<workdir>/repos`, reused
// between jobs and fetched only when a job's commit is missing; and worktrees of that clone under
// `<workdir>/checkouts/<clone>/<n>`, each reused by the next job once its job is done (checked out
// afresh on that job's branch, and cleaned of everything git does not track), so a worker needs
// as many as it runs plans at once, however many plans it runs. The worker's git calls on one
// clone (checkouts, commits, fetches, pushes) run one at a time, since they share its objects and
// refs, which git locks while it writes them.
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pathExists } from '../util/path-exists.js';
import { git, GitError } from '../util/git.js';
import { WORKDIR_PARTS } from './workdir-layout.js';

/** The worker cannot get the code at all: the job goes back to the queue for another worker. */
export class CloneError extends Error {}

export interface JobCheckout {
  path: string;
  /** The remote branch's commit as this clone knew it when the checkout was made ('' when none): the lease of the attempt's push. */
  expected: string;
  /** The job is done with the checkout: the next job may have it. */
  release: () => void;
}

export class Checkouts {
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly pushes = new Map<string, PendingPush[]>();

  /** Bound on a clone, fetch or push: a remote that stops answering must not hold the worker for ever. */
  private readonly timeoutMs = 10 * 60_000;

  constructor(private readonly workdir: string) {}

  private serial<T>(key: string, step: () => Promise<T>): Promise<T> {
    const next = (this.chains.get(key) ?? Promise.resolve()).then(step);
    this.chains.set(key, next.catch(() => undefined));
    return next;
  }

  private repoDir(remote: string): string {
    return join(this.workdir, WORKDIR_PARTS.repos, `${createHash('sha256').update(remote).digest('hex').slice(0, 16)}.git`);
  }

  private async clone(remote: string, dir: string): Promise<void> {
    if (await pathExists(join(dir, 'HEAD'))) return;
    await mkdir(join(this.workdir, WORKDIR_PARTS.repos), { recursive: true });
    // Cloned beside, then renamed: a clone cut short is never mistaken for a usable one.
    const tmp = `${dir}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await git(this.workdir, ['clone', '--bare', '--quiet', '--', remote, tmp], { timeoutMs: this.timeoutMs });
      await git(tmp, ['config', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*']);
      await rename(tmp, dir);
    } catch (error) {
      await rm(tmp, { recursive: true, force: true });
      throw new CloneError(`cannot clone ${remote}: ${error instanceof GitError ? error.message.replace(/^git clone failed: /, '') : String(error)}`);
    }
  }

  /** Commits known to be in a clone: every plan of a batch starts from the same one. */
  private readonly known = new Set<string>();

  private async hasCommit(dir: string, commit: string): Promise<boolean> {
    if (this.known.has(`${dir}\0${commit}`)) return true;
    const has = await git(dir, ['cat-file', '-e', `${commit}^{commit}`]).then(
      () => true,
      () => false,
    );
    if (has) this.known.add(`${dir}\0${commit}`);
    return has;
  }

  /** Runs `step` (a commit in one of the clone's checkouts) while no other git call runs on the clone of `remote`. */
  exclusive<T>(remote: string, step: () => Promise<T>): Promise<T> {
    return this.serial(this.repoDir(remote), step);
  }

  /** Checkouts a running job holds. */
  private readonly busy = new Set<string>();

  private freeSlot(dir: string): string {
    const root = join(this.workdir, WORKDIR_PARTS.checkouts, basename(dir, '.git'));
    for (let n = 1; ; n++) {
      const path = join(root, String(n));
      if (!this.busy.has(path)) {
        this.busy.add(path);
        return path;
      }
    }
  }

  /** A checkout on `branch`, from the branch as last pushed when `continueBranch`, else from `commit`, with nothing else in it. */
  prepare(input: { remote: string; commit: string; branch: string; continueBranch: boolean; beforeReuse?: (path: string) => Promise<void> }): Promise<JobCheckout> {
    const dir = this.repoDir(input.remote);
    return this.serial(dir, async () => {
      await this.clone(input.remote, dir);
      const fetch = async () => {
        try {
          await git(dir, ['fetch', '--quiet', '--prune', 'origin'], { timeoutMs: this.timeoutMs });
        } catch (error) {
          throw new CloneError(`cannot fetch from ${input.remote}: ${(error as Error).message}`);
        }
      };
      if (input.continueBranch || !(await this.hasCommit(dir, input.commit))) {
        await fetch();
        if (!(await this.hasCommit(dir, input.commit))) throw new CloneError(`commit ${input.commit.slice(0, 12)} is not on ${input.remote}`);
      }
      const expected = await this.knownHead(dir, input.branch);
      const base = input.continueBranch && expected ? expected : input.commit;
      const path = this.freeSlot(dir);
      try {
        await input.beforeReuse?.(path);
        await this.checkOut(dir, path, input.branch, base);
        return { path, expected, release: () => this.busy.delete(path) };
      } catch (error) {
        this.busy.delete(path);
        throw error;
      }
    });
  }

  private async checkOut(dir: string, path: string, branch: string, base: string): Promise<void> {
    // A retry on this worker finds the branch still checked out where its earlier attempt ran.
    const retried = async (step: () => Promise<unknown>) =>
      step().catch(async () => {
        await this.releaseBranch(dir, branch);
        await step();
      });
    if (await pathExists(join(path, '.git'))) {
      try {
        await retried(() => git(path, ['checkout', '--quiet', '--force', '-B', branch, base]));
        await git(path, ['clean', '-ffdxq']);
        return;
      } catch {
        // Not usable any more (say, a lock file left by a git that was killed): made afresh.
      }
    }
    await rm(path, { recursive: true, force: true });
    await git(dir, ['worktree', 'prune']);
    await mkdir(join(path, '..'), { recursive: true });
    await retried(() => git(dir, ['worktree', 'add', '--quiet', '-B', branch, path, base]));
  }

  private async knownHead(dir: string, branch: string): Promise<string> {
    return git(dir, ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${branch}`]).catch(() => '');
  }

  /** The remote branch's commit now ('' when it has none), fetched. */
  remoteHead(remote: string, branch: string): Promise<string> {
    const dir = this.repoDir(remote);
    return this.serial(dir, async () => {
      const line = await git(dir, ['ls-remote', 'origin', `refs/heads/${branch}`], { timeoutMs: this.timeoutMs });
      const sha = line.split(/\s/)[0] ?? '';
      if (sha) await git(dir, ['fetch', '--quiet', 'origin', `+refs/heads/${branch}:refs/remotes/origin/${branch}`], { timeoutMs: this.timeoutMs });
      return sha;
    });
  }

  /** The checkout an earlier attempt of the plan ran in lets go of the branch (its HEAD stays where it was). */
  private async releaseBranch(dir: string, branch: string): Promise<void> {
    const list = await git(dir, ['worktree', 'list', '--porcelain']);
    for (const block of list.split('\n\n')) {
      const path = /^worktree (.*)$/m.exec(block)?.[1];
      if (path && block.includes(`\nbranch refs/heads/${branch}`)) await git(path, ['checkout', '--quiet', '--detach']);
    }
  }

  /**
   * Pushes `head` to the remote branch, with a lease: only while the branch is still at `expected`
   * ('' when it must not exist yet), so an attempt never overwrites work it did not start from. Pushes asked for while the clone is busy go out together
   * in one `git push` (a push costs a few processes on both ends; a worker running several plans
   * at once would otherwise spend much of its time on them). One that fails is retried alone, so
   * each plan gets its own error.
   */
  push(input: { remote: string; branch: string; head: string; expected: string }): Promise<void> {
    const dir = this.repoDir(input.remote);
    return new Promise((resolve, reject) => {
      const waiting = this.pushes.get(dir);
      if (waiting) return void waiting.push({ ...input, resolve, reject });
      this.pushes.set(dir, [{ ...input, resolve, reject }]);
      void this.serial(dir, () => this.flushPushes(dir));
    });
  }

  private async flushPushes(dir: string): Promise<void> {
    const batch = this.pushes.get(dir) ?? [];
    this.pushes.delete(dir);
    // All or nothing (--atomic), so a batch refused for one lease can be pushed again one by one.
    const push = (some: PendingPush[]) =>
      git(dir, ['push', '--quiet', '--atomic', ...some.map((p) => `--force-with-lease=refs/heads/${p.branch}:${p.expected}`), 'origin', ...some.map((p) => `${p.head}:refs/heads/${p.branch}`)], {
        timeoutMs: this.timeoutMs,
      });
    try {
      await push(batch);
      for (const p of batch) p.resolve();
    } catch (error) {
      if (batch.length === 1) return batch[0]!.reject(error as Error);
      for (const p of batch) await push([p]).then(p.resolve, p.reject);
    }
  }
}

interface PendingPush {
  head: string;
  expected: string;
  branch: string;
  resolve: () => void;
  reject: (error: Error) => void;
}
