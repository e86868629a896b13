// `ralph land --forge` (docs/deliver.md#landing-through-the-forge): a branch whose integrated tree
// passed its checks lands by merging its pull request, so the forge records the merge. The pull
// request's head is first set to the checked commit (the branch applied on the target, which must
// be the remote's target too), and the merge names that commit, so GitHub merges exactly what was
// checked or refuses (409: its head moved). The local target then follows the remote's.
import { git, GitError } from '../util/git.js';
import { ForgeError } from './forge.js';
import { moveTarget } from './move-target.js';
import type { OpenedForge } from './open-forge.js';

const TIMEOUT_MS = 120_000;
const REMOTE_TARGET = 'refs/ralph/land-remote-target';

async function fetchTarget(repo: string, remote: string, target: string): Promise<string> {
  await git(repo, ['fetch', '--quiet', '--no-tags', remote, `+refs/heads/${target}:${REMOTE_TARGET}`], { timeoutMs: TIMEOUT_MS });
  return git(repo, ['rev-parse', REMOTE_TARGET]);
}

export async function landThroughForge(o: {
  repo: string;
  target: string;
  /** The local target's commit the branch was applied on, and the checked commit. */
  onto: string;
  commit: string;
  /** The pull request's head branch. */
  head: string;
  opened: OpenedForge;
  method: 'merge' | 'squash' | 'rebase';
}): Promise<{ ok: true; note?: string } | { ok: false; reason: string }> {
  const { forge, remote } = o.opened;
  try {
    const remoteTarget = await fetchTarget(o.repo, remote, o.target);
    if (remoteTarget !== o.onto) {
      return { ok: false, reason: `${remote}/${o.target} (${remoteTarget.slice(0, 12)}) is not the local ${o.target} (${o.onto.slice(0, 12)}): the checks ran on the local one; pull or push ${o.target}, then land again` };
    }
    const pull = await forge.findOpenPull(o.head);
    if (!pull) return { ok: false, reason: `no open pull request from ${o.head} on ${forge.name}` };
    if (pull.base !== o.target) return { ok: false, reason: `pull request #${pull.number} goes to ${pull.base}, not ${o.target}` };
    await git(o.repo, ['push', '--quiet', '--force', '--no-verify', remote, `${o.commit}:refs/heads/${o.head}`], { timeoutMs: TIMEOUT_MS });
    await forge.mergePull(pull.number, { method: o.method, sha: o.commit });
    const merged = await fetchTarget(o.repo, remote, o.target);
    const moved = await moveTarget(o.repo, o.target, o.onto, merged);
    return moved.ok ? { ok: true, note: `pull request #${pull.number} merged (${o.method})` } : { ok: true, note: `pull request #${pull.number} merged (${o.method}); the local ${o.target} did not follow: ${moved.reason}` };
  } catch (error) {
    const why = error instanceof ForgeError || error instanceof GitError ? error.message : String(error);
    return { ok: false, reason: `landing through ${forge.name} failed: ${why}` };
  }
}
