// STATUS.json (docs/files.md#statusjson), rewritten atomically on every state change.
import { readRegularFileSync } from '../util/read-regular-file.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';

export interface StatusFile {
  repo: string;
  plan: string;
  started: string;
  mode: string;
  task: string | null;
  state: string;
  iteration: number;
  pid: number;
  /** While state is `waiting`: until when (ISO), and for which limit. */
  waitingUntil?: string;
  waitingFor?: string;
  /** The tasks' checks (docs/plans.md#task-checks): "tasks 2/3 verified", and each task's state. */
  tasksVerified?: string;
  tasks?: { name: string; status: string; reason?: string; tail?: string; firstPassedIteration: number | null }[];
  updated: string;
}

export function writeStatus(path: string, status: Omit<StatusFile, 'updated'>): void {
  writeFileAtomicSync(path, `${JSON.stringify({ ...status, updated: new Date().toISOString() }, null, 2)}\n`);
}

export function readStatus(path: string): StatusFile | undefined {
  try {
    return JSON.parse(readRegularFileSync(path, 1024 * 1024).toString('utf8')) as StatusFile;
  } catch {
    return undefined;
  }
}
