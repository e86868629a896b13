// Only a summary written during the run counts (docs/hostile.md "Summary"). A summary file that
// is already there when a run starts (from an earlier run, or planted with a future mtime) is
// moved into the run directory; if it cannot be moved, its content hash is remembered and that
// content is refused by the gate.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { moveFileSync } from '../util/move-file.js';
import { readRegularFileSync } from '../util/read-regular-file.js';

export const SUMMARY_ASIDE_NAME = 'summary-before-run.json';

export type SummaryAside = { kind: 'none' } | { kind: 'moved'; to: string } | { kind: 'kept'; sha256: string; why: string };

export function setSummaryAside(summaryPath: string, runDir: string): SummaryAside {
  try {
    lstatSync(summaryPath);
  } catch {
    return { kind: 'none' };
  }
  const to = join(runDir, SUMMARY_ASIDE_NAME);
  try {
    mkdirSync(runDir, { recursive: true });
    moveFileSync(summaryPath, to);
    return { kind: 'moved', to };
  } catch (error) {
    let sha256 = '';
    try {
      sha256 = createHash('sha256').update(readRegularFileSync(summaryPath)).digest('hex');
    } catch {
      // unreadable now: the gate will say so if it is still there
    }
    return { kind: 'kept', sha256, why: (error as Error).message };
  }
}
