// The run's summary.json, shown at the end of its result file; the plan module knows its path
// (docs/plans.md#the-summary-file: the plan's `summary:`, else `<plan dir>/<plan stem>.summary.json`).
// Only a summary written during this attempt is shown; an older one would describe another run.
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { parsePlan } from '../plan/index.js';

/** Where the plan's runs write their summary; null when the plan can no longer be read. */
export async function summaryPathOf(planPath: string): Promise<string | null> {
  try {
    return parsePlan(await readFile(planPath, 'utf8'), planPath).plan?.summaryPath ?? null;
  } catch {
    return null;
  }
}

/** The parsed summary when it was written since `since` (1 s slack for coarse clocks), else undefined. */
export async function readFreshSummary(path: string, since: Date): Promise<unknown> {
  try {
    const info = await stat(path);
    if (info.mtimeMs < since.getTime() - 1_000) return undefined;
    const text = await readFile(path, 'utf8');
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return { error: `${basename(path)} is not valid JSON`, text: text.slice(0, 2_000) };
    }
  } catch {
    return undefined;
  }
}
