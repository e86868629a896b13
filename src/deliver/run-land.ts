// `ralph land` as a function (docs/deliver.md#landing): for each accepted branch in order, apply
// it on top of the current target in a scratch worktree, run its plan's verify commands and the
// land checks on that integrated tree, and only then move the target, in one step. A conflict or
// a failing check leaves the branch unlanded, with the reason and the check's output, and the
// queue goes on. Every step is recorded in land.json, so an interrupted landing resumes.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { EXIT_CODES } from '../contract.js';
import { UsageError } from '../errors.js';
import { keepOutOfGit } from '../runs/git-ignore.js';
import { acquirePlanLock, type PlanLock } from '../runs/plan-lock.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { git, GitError } from '../util/git.js';
import { applyBranch, removeScratch, scratchWorktree } from './apply-branch.js';
import { LAND_REPORT_FILE, renderLandReport, reportOf, type LandReport } from './land-report.js';
import { landQueue, type LandItem } from './land-queue.js';
import { LAND_STATE_FILE, readLandState, writeLandState, type LandItemState, type LandState } from './land-state.js';
import { checkedOutAt, moveTarget } from './move-target.js';
import { chooseRemote, tryGit } from '../util/git-remote.js';
import type { OpenedForge } from './open-forge.js';
import { prBranch } from './deliver-plan.js';
import { landThroughForge } from './land-through-forge.js';
import { homeOf } from '../sandbox/index.js';
import { checkIntegratedTree } from './land-checks.js';
import { chooseCheckSandboxes, type LandSandboxOptions } from './land-sandbox.js';

export interface LandOptions {
  cwd: string;
  /** A batch folder, or branch names. */
  args: string[];
  order?: string[];
  target?: string;
  strategy?: 'rebase' | 'merge';
  /** Commands run on the integrated tree after the plan's verify commands (land.checks, --check). */
  checks?: string[];
  checkTimeoutMs?: number;
  push?: boolean;
  remote?: string;
  /** Where land.json and land-report.md go (default: the batch folder, else .ralph/land/<target>). */
  out?: string;
  /** --forge: each checked branch lands by merging its pull request on the forge, not by moving the target here. */
  forge?: { opened: OpenedForge; method: 'merge' | 'squash' | 'rebase' };
  /** --sandbox and the config's `sandbox:`: where the checks run (docs/deliver.md#checks-in-the-sandbox). */
  sandbox?: LandSandboxOptions;
}

export interface LandDeps {
  signal?: AbortSignal;
  /** One line per step, for people (stderr). */
  onLine?: (line: string) => void;
  /** The one warning of --sandbox auto where the sandbox cannot start. */
  onWarning?: (line: string) => void;
  now?: () => Date;
  /** RALPH_SANDBOX, HOME (default: the process's). */
  env?: NodeJS.ProcessEnv;
}

export interface LandOutcome {
  report: LandReport;
  reportPath: string;
  statePath: string;
  exitCode: number;
}

const SCRATCH_DIR = 'land-worktree';
/** Each check's limit unless land.check_timeout says otherwise: a test suite, not a verify command. */
export const DEFAULT_CHECK_TIMEOUT_MS = 30 * 60_000;

async function head(repo: string, ref: string): Promise<string> {
  return git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
}

async function isAncestor(repo: string, a: string, b: string): Promise<boolean> {
  try {
    await git(repo, ['merge-base', '--is-ancestor', a, b]);
    return true;
  } catch {
    return false;
  }
}

function sameQueue(state: LandState, items: LandItem[], target: string): boolean {
  return state.target === target && state.items.length === items.length && state.items.every((s, i) => s.id === items[i]!.id && s.branch === items[i]!.branch);
}

async function chooseTarget(repo: string, asked: string | undefined): Promise<string> {
  const target = asked ?? (await tryGit(repo, ['symbolic-ref', '--quiet', '--short', 'HEAD']));
  if (!target) throw new UsageError(`${repo} is not on a branch (detached HEAD): name the branch to land on`, 'ralph land … --target main (or land.target in ralph.config.yaml)');
  try {
    await head(repo, `refs/heads/${target}`);
  } catch {
    throw new UsageError(`no branch ${target} to land on in ${repo}`, 'name a local branch with --target');
  }
  const at = await checkedOutAt(repo, target);
  if (at) {
    const changed = await git(at, ['status', '--porcelain', '--untracked-files=no']);
    if (changed) throw new UsageError(`${target} is checked out in ${at} with uncommitted changes: landing moves it, and would mix them in`, 'commit or stash them first (git stash)');
  }
  return target;
}

export async function runLand(o: LandOptions, deps: LandDeps = {}): Promise<LandOutcome> {
  const now = deps.now ?? (() => new Date());
  const say = deps.onLine ?? (() => undefined);
  const signal = deps.signal ?? new AbortController().signal;
  const env = deps.env ?? process.env;
  const source = await landQueue(o.cwd, o.args, o.order);
  // Before anything lands: `--sandbox on` where it cannot start is refused here (exit 64).
  const sandboxes = chooseCheckSandboxes(o.sandbox ?? {}, env, source.items.map((i) => i.sandbox));
  if (sandboxes.warning !== undefined) deps.onWarning?.(sandboxes.warning);
  const repo = source.repo;
  const target = await chooseTarget(repo, o.target);
  const strategy = o.strategy ?? 'rebase';
  const out = o.out ?? source.batchOut ?? join(repo, '.ralph', 'land', target.replace(/[^A-Za-z0-9._-]+/g, '-'));
  keepOutOfGit(out, o.cwd);
  await mkdir(out, { recursive: true });
  const statePath = join(out, LAND_STATE_FILE);
  const scratch = join(out, SCRATCH_DIR);
  const checkTimeoutMs = o.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const home = homeOf(env);

  const lock = lockLanding(repo, statePath, out);
  try {
    const previous = await readLandState(statePath);
    const resumed = previous !== null && previous.status !== 'done' && previous.strategy === strategy && sameQueue(previous, source.items, target);
    const state: LandState = resumed
      ? { ...previous, status: 'running', updatedAt: now().toISOString() }
      : {
          version: 1,
          target,
          strategy,
          startedFrom: await head(repo, `refs/heads/${target}`),
          startedAt: now().toISOString(),
          updatedAt: now().toISOString(),
          status: 'running',
          items: source.items.map((i): LandItemState => ({ id: i.id, branch: i.branch, status: 'pending' })),
        };
    delete state.pushed;
    const save = async () => {
      state.updatedAt = now().toISOString();
      await writeLandState(statePath, state);
    };
    await save();
    if (resumed) say(`resuming the landing in ${out}: ${state.items.filter((i) => i.status !== 'pending').length} of ${state.items.length} done`);

    let interrupted = false;
    try {
      for (let n = 0; n < state.items.length; n++) {
        const item = state.items[n]!;
        if (item.status !== 'pending') continue;
        if (signal.aborted) {
          interrupted = true;
          break;
        }
        const plan = source.items[n]!;
        const onto = await head(repo, `refs/heads/${target}`);
        const branchCommit = await head(repo, `refs/heads/${plan.branch}`);
        const set = async (s: LandItemState) => {
          state.items[n] = s;
          await save();
        };
        if (await isAncestor(repo, branchCommit, onto)) {
          await set({ id: item.id, branch: item.branch, status: 'landed', commit: onto, onto, checks: [], note: 'already on the target' });
          say(`${item.id}: already on ${target}`);
          continue;
        }
        await scratchWorktree(repo, scratch, onto);
        const applied = await applyBranch({ repo, scratch, onto, branch: plan.branch, branchCommit, strategy });
        if (!applied.ok) {
          await set({ id: item.id, branch: item.branch, status: 'unlanded', reason: applied.reason, checks: [], onto });
          say(`${item.id}: not landed: ${applied.reason}`);
          continue;
        }
        const all = [...plan.verify.map((command) => ({ kind: 'verify' as const, command })), ...(o.checks ?? []).map((command) => ({ kind: 'land' as const, command }))];
        const checked = await checkIntegratedTree({ id: item.id, tree: scratch, commands: all, sandbox: sandboxes.choices[n]!, env, home, timeoutMs: checkTimeoutMs, signal, say });
        if (checked.interrupted) {
          interrupted = true;
          break;
        }
        const { checks } = checked;
        const sandbox = checked.sandbox ? { sandbox: checked.sandbox } : {};
        if (checked.failed !== null) {
          await set({ id: item.id, branch: item.branch, status: 'unlanded', reason: checked.failed, checks, onto, ...sandbox });
          say(`${item.id}: not landed: ${checked.failed}`);
          continue;
        }
        // The pull request's head: ralph/pr/<plan> for a batch's plan, the branch itself otherwise.
        const moved = o.forge
          ? await landThroughForge({ repo, target, onto, commit: applied.commit, head: source.batchOut ? prBranch(item.id) : item.branch, ...o.forge })
          : await moveTarget(repo, target, onto, applied.commit);
        if (!moved.ok) {
          await set({ id: item.id, branch: item.branch, status: 'unlanded', reason: moved.reason, checks, onto, ...sandbox });
          say(`${item.id}: not landed: ${moved.reason}`);
          continue;
        }
        const landedAs = o.forge ? await head(repo, `refs/heads/${target}`) : applied.commit;
        await set({ id: item.id, branch: item.branch, status: 'landed', commit: landedAs, onto, checks, ...(moved.note ? { note: moved.note } : {}), ...sandbox });
        say(`${item.id}: landed on ${target} as ${landedAs.slice(0, 12)}${checks.length ? ` (${checks.length} check${checks.length === 1 ? '' : 's'} passed)` : ''}`);
      }
    } finally {
      await removeScratch(repo, scratch);
    }

    if (!interrupted && o.push) {
      const remote = await chooseRemote(repo, o.remote);
      if (!remote) state.pushed = { ok: false, note: 'no remote to push to' };
      else {
        try {
          await git(repo, ['push', '--quiet', remote, `refs/heads/${target}:refs/heads/${target}`], { timeoutMs: 120_000 });
          state.pushed = { ok: true, note: `${target} pushed to ${remote}` };
        } catch (error) {
          state.pushed = { ok: false, note: `git push ${remote} ${target} failed: ${error instanceof GitError ? error.message : String(error)}` };
        }
      }
      say(state.pushed.note);
    }
    state.status = interrupted ? 'interrupted' : 'done';
    await save();
    const report = reportOf(state, await head(repo, `refs/heads/${target}`), source.skipped, interrupted);
    const reportPath = join(out, LAND_REPORT_FILE);
    await writeFileAtomic(reportPath, renderLandReport(report));
    const exitCode = interrupted ? EXIT_CODES.interrupted : report.unlanded.length > 0 || state.pushed?.ok === false ? 1 : 0;
    return { report, reportPath, statePath, exitCode };
  } finally {
    lock.release();
  }
}

/** One landing per land.json at a time: two would each move the target from under the other's checks. */
function lockLanding(repo: string, statePath: string, out: string): PlanLock {
  try {
    return acquirePlanLock({ cwd: repo, planPath: statePath, planId: 'land', runId: 'land', runDir: out });
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    throw new UsageError(`another ralph land is using ${out}: ${error.message.replace(/^plan land is already running in [^:]*: /, '')}`, 'wait for it to end (it resumes from land.json if it was killed)');
  }
}
