// Findings Index IDs (docs/batch.md#result-files-and-the-sentinel): a short code of the observation type and a 3-digit number
// counted per type within one plan's result, e.g. the second bug is BG002. The table is part of
// the batch's documented output; keep it stable.
import type { ObservationType, Severity } from '../contract.js';

export const TYPE_CODES: Record<ObservationType, string> = {
  bug: 'BG',
  stub: 'STB',
  'api-issue': 'API',
  insight: 'INS',
  blocker: 'BLK',
  'technical-debt': 'TD',
  assumption: 'ASM',
  'scope-creep': 'SC',
  dependency: 'DEP',
  questionable: 'QST',
  'already-complete': 'AC',
  'checkpoint-automated': 'CA',
  'tooling-friction': 'TFR',
  'test-failed': 'TST',
  'test-infrastructure': 'TI',
  'manual-checkpoint-deferred': 'MCD',
};

export type Priority = 'P0' | 'P1' | 'P2' | 'P3';

export const PRIORITY_OF: Record<Severity, Priority> = {
  critical: 'P0',
  high: 'P1',
  medium: 'P2',
  low: 'P3',
  info: 'P3',
};

/** Numbers the IDs of one result file, in the order its findings were recorded. */
export function createIdCounter(): (type: ObservationType) => string {
  const seen = new Map<string, number>();
  return (type) => {
    const code = TYPE_CODES[type];
    const n = (seen.get(code) ?? 0) + 1;
    seen.set(code, n);
    return `${code}${String(n).padStart(3, '0')}`;
  };
}
