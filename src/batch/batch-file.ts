// `{out}/batch.json`: written when the batch starts (so --resume knows its plans and options) and
// rewritten when it ends (with every plan's row and the exit code). Documented in the README.
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import { keepOutOfGit } from '../runs/git-ignore.js';
import { writeJsonAtomic } from '../util/atomic-write.js';
import type { BatchPlan, IsolateMode, PlanRow, SharedExecOptions } from './types.js';

export const BATCH_FILE = 'batch.json';
export const BATCH_FILE_VERSION = 1;

export interface BatchFile {
  version: typeof BATCH_FILE_VERSION;
  batchId: string;
  createdAt: string;
  updatedAt: string;
  /** Where the batch was started; plans and exec options resolve against it. */
  cwd: string;
  /** Absolute path of the batch folder. */
  out: string;
  options: {
    concurrency: number;
    isolate: IsolateMode;
    planTimeoutMs: number | null;
    exec: SharedExecOptions;
  };
  /** The repository holding `cwd` when plans run in worktrees. */
  repo: string | null;
  /** The commit worktrees start from: HEAD, or with --allow-dirty a snapshot of the working tree (absent in older batches: HEAD). */
  base?: string | null;
  plans: BatchPlan[];
  status: 'running' | 'interrupted' | 'done';
  /** Filled in when the batch ends. */
  complete: number | null;
  exitCode: number | null;
  results: PlanRow[];
}

/**
 * A new batch's record, before any plan ran. Its folder is made here, kept out of git (an agent's
 * `git add -A` never picks it up), and nothing is written into it yet.
 */
export async function newBatchFile(o: Pick<BatchFile, 'cwd' | 'out' | 'batchId' | 'options' | 'repo' | 'plans'> & { at: Date; base?: string | null }): Promise<BatchFile> {
  keepOutOfGit(o.out, o.cwd);
  await mkdir(o.out, { recursive: true });
  const stamp = o.at.toISOString();
  return {
    version: BATCH_FILE_VERSION,
    batchId: o.batchId,
    createdAt: stamp,
    updatedAt: stamp,
    cwd: o.cwd,
    out: o.out,
    options: o.options,
    repo: o.repo,
    ...(o.base !== undefined ? { base: o.base } : {}),
    plans: o.plans,
    status: 'running',
    complete: null,
    exitCode: null,
    results: [],
  };
}

export function writeBatchFile(out: string, file: BatchFile): Promise<void> {
  return writeJsonAtomic(join(out, BATCH_FILE), file);
}

export async function readBatchFile(out: string): Promise<BatchFile> {
  const path = join(out, BATCH_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new UsageError(`${path}: no batch to resume here`, 'give --resume the folder of an earlier `ralph batch` (it holds batch.json)');
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path}: not valid JSON (${(error as Error).message})`);
  }
  const d = data as Partial<BatchFile> | null;
  if (
    !d ||
    d.version !== BATCH_FILE_VERSION ||
    typeof d.batchId !== 'string' ||
    typeof d.cwd !== 'string' ||
    !Array.isArray(d.plans) ||
    !d.plans.every((p) => typeof p?.id === 'string' && typeof p?.path === 'string') ||
    typeof d.options?.concurrency !== 'number'
  ) {
    throw new UsageError(`${path}: not a batch file this version of ralph can resume`);
  }
  return d as BatchFile;
}
