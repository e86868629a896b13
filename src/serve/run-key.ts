// How the page names a run: its folder relative to `.ralph/`, `runs/<id>` for a single run and
// `batches/<batch>/runs/<plan>[.<n>]` for a batch's. A key from a request is checked segment by
// segment (docs/hostile.md#run-ids) before it becomes a path, so no request reaches outside.
import { join } from 'node:path';
import { RUN_FILES } from '../contract.js';
import { isRunId } from '../runs/run-id.js';

export const BATCHES = RUN_FILES.batches;

export function singleRunKey(id: string): string {
  return `${RUN_FILES.runs}/${id}`;
}

export function batchRunKey(batch: string, dir: string): string {
  return `${BATCHES}/${batch}/${RUN_FILES.runs}/${dir}`;
}

/** The run directory a key names under `root` (`.ralph/`), or undefined for anything else. */
export function runDirOfKey(root: string, key: string): string | undefined {
  const parts = key.split('/');
  if (parts.length === 2 && parts[0] === RUN_FILES.runs && isRunId(parts[1]!)) return join(root, ...parts);
  if (parts.length === 4 && parts[0] === BATCHES && isRunId(parts[1]!) && parts[2] === RUN_FILES.runs && isRunId(parts[3]!)) return join(root, ...parts);
  return undefined;
}

/** The batch folder an id names under `root`, or undefined. */
export function batchDirOf(root: string, id: string): string | undefined {
  return isRunId(id) ? join(root, BATCHES, id) : undefined;
}
