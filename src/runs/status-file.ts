// STATUS.json (docs/files.md#statusjson), rewritten atomically on every state change.
import { readFileSync } from 'node:fs';
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
  updated: string;
}

export function writeStatus(path: string, status: Omit<StatusFile, 'updated'>): void {
  writeFileAtomicSync(path, `${JSON.stringify({ ...status, updated: new Date().toISOString() }, null, 2)}\n`);
}

export function readStatus(path: string): StatusFile | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as StatusFile;
  } catch {
    return undefined;
  }
}
