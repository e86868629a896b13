// land.json (docs/deliver.md#resuming): the landing's queue and where each branch got to, written
// atomically after every step, so an interrupted `ralph land` run again picks up where it stopped.
// The target only ever moves in one step (move-target.ts); this file only says what is done.
import { readFile } from 'node:fs/promises';
import { writeJsonAtomic } from '../util/atomic-write.js';
import type { CheckSandboxRecord } from './land-sandbox.js';

export const LAND_STATE_FILE = 'land.json';

export interface CheckRecord {
  /** `verify` (the plan's) or `land` (land.checks). */
  kind: 'verify' | 'land';
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** The tail of its output (the check's own words: shown fenced). */
  tail: string;
}

export type LandItemState =
  | { id: string; branch: string; status: 'pending' }
  | { id: string; branch: string; status: 'landed'; commit: string; onto: string; checks: CheckRecord[]; note?: string; sandbox?: CheckSandboxRecord }
  | { id: string; branch: string; status: 'unlanded'; reason: string; checks: CheckRecord[]; onto: string; sandbox?: CheckSandboxRecord };

export interface LandState {
  version: 1;
  target: string;
  strategy: 'rebase' | 'merge';
  /** The target's commit when the landing first started. */
  startedFrom: string;
  startedAt: string;
  updatedAt: string;
  status: 'running' | 'interrupted' | 'done';
  items: LandItemState[];
  pushed?: { ok: boolean; note: string };
}

export async function readLandState(path: string): Promise<LandState | null> {
  try {
    const s = JSON.parse(await readFile(path, 'utf8')) as LandState;
    return s && s.version === 1 && Array.isArray(s.items) ? s : null;
  } catch {
    return null;
  }
}

export function writeLandState(path: string, state: LandState): Promise<void> {
  return writeJsonAtomic(path, state);
}
