// What `ralph land` lands, in order (docs/deliver.md#landing): the accepted plans of a batch (its
// plans' order; their verify commands from the plan files), or branches named on the command line
// (no plan: only the land checks); --order reorders and chooses.
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { BATCH_FILE, readBatchFile } from '../batch/batch-file.js';
import { readRows } from '../batch/index-file.js';
import { branchHead } from '../batch/commit-plan-branch.js';
import { loadPlan } from '../plan/index.js';
import type { SandboxLayer } from '../sandbox/settings.js';
import { git } from '../util/git.js';

export interface LandItem {
  /** The plan id, or the branch name when landing branches. */
  id: string;
  branch: string;
  /** The plan's verify commands (none for a bare branch). */
  verify: string[];
  /** The plan's `sandbox:` (its checks' sandbox, docs/deliver.md#checks-in-the-sandbox). */
  sandbox?: SandboxLayer;
}

export interface LandSource {
  repo: string;
  /** The batch folder, or null for branches. */
  batchOut: string | null;
  items: LandItem[];
  /** Accepted plans left out, and plans that were not accepted, with why (for the report). */
  skipped: { id: string; reason: string }[];
}

async function isBatchFolder(path: string): Promise<boolean> {
  try {
    return (await stat(join(path, BATCH_FILE))).isFile();
  } catch {
    return false;
  }
}

async function branchExists(repo: string, branch: string): Promise<boolean> {
  return (await branchHead(repo, branch)) !== null;
}

function ordered<T extends { id: string }>(items: T[], order: string[] | undefined, skipped: { id: string; reason: string }[]): T[] {
  if (!order) return items;
  const unknown = order.filter((id) => !items.some((i) => i.id === id));
  if (unknown.length) throw new UsageError(`--order names ${unknown.join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} not among the branches to land (${items.map((i) => i.id).join(', ') || 'none'})`);
  for (const i of items) if (!order.includes(i.id)) skipped.push({ id: i.id, reason: 'not named by --order' });
  return order.map((id) => items.find((i) => i.id === id)!);
}

export async function landQueue(cwd: string, args: string[], order: string[] | undefined): Promise<LandSource> {
  if (args.length === 0) throw new UsageError('nothing to land', 'usage: ralph land <batch folder> | <branch…>');
  const skipped: { id: string; reason: string }[] = [];
  if (args.length === 1 && (await isBatchFolder(resolve(cwd, args[0]!)))) {
    const out = resolve(cwd, args[0]!);
    const file = await readBatchFile(out);
    if (!file.repo) throw new UsageError(`the batch in ${out} ran its plans in one shared folder (--isolate none): it has no branches to land`);
    const rows = await readRows(out, file.plans, new Map());
    const items: LandItem[] = [];
    for (const plan of file.plans) {
      const row = rows.find((r) => r.plan === plan.id);
      if (row?.outcome !== 'complete') {
        skipped.push({ id: plan.id, reason: row?.outcome ? `not accepted: it ended ${row.outcome}` : 'not accepted: it has no result' });
        continue;
      }
      if (!row.branch || !(await branchExists(file.repo, row.branch))) {
        skipped.push({ id: plan.id, reason: `its branch ${row.branch ?? '(none)'} does not exist` });
        continue;
      }
      let verify: string[] = [];
      let sandbox: SandboxLayer | undefined;
      try {
        ({ verify, sandbox } = (await loadPlan(plan.path)).config);
      } catch {
        // a plan file gone since: the land checks still run
      }
      items.push({ id: plan.id, branch: row.branch, verify, ...(sandbox ? { sandbox } : {}) });
    }
    return { repo: file.repo, batchOut: out, items: ordered(items, order, skipped), skipped };
  }
  let repo: string;
  try {
    repo = await git(cwd, ['rev-parse', '--show-toplevel']);
  } catch {
    throw new UsageError(`${args[0]} is not a batch folder (no ${BATCH_FILE}), and ${cwd} is not in a git repository to find branches in`);
  }
  const missing: string[] = [];
  for (const b of args) if (!(await branchExists(repo, b))) missing.push(b);
  if (missing.length) throw new UsageError(`no branch ${missing.join(', ')} in ${repo}${args.length === 1 ? ', and it is not a batch folder either' : ''}`, 'give a batch folder (with batch.json) or local branch names');
  return { repo, batchOut: null, items: ordered(args.map((b) => ({ id: b, branch: b, verify: [] })), order, skipped), skipped };
}
