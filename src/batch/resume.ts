// What `ralph batch --resume` does with the files a stopped or crashed batch left behind, plan by
// plan, before anything runs again:
// - a `.partial` ending with the sentinel finished writing but was not renamed: promote it;
// - a `.partial` without the sentinel (or empty) was cut short: move it aside, run the plan;
// - a `.md` whose outcome is `interrupted`: move it aside, run the plan again;
// - a `.md` without the sentinel: accept it, with a warning in the index;
// - no result at all: run the plan.
import { readFile, rename } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { moveAside, partialPath, resultPath } from './partial-file.js';
import { endsWithSentinel, parseResultFile } from './result-file.js';
import { RUNS_DIR, runDirName } from './run-attempt.js';
import type { BatchPlan } from './types.js';
import { pathExists } from '../util/path-exists.js';


async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return null;
  }
}

/** The first attempt number whose run directory is free. */
export async function nextAttempt(out: string, plan: string): Promise<number> {
  let n = 1;
  while (await pathExists(join(out, RUNS_DIR, runDirName(plan, n)))) n++;
  return n;
}

export interface ResumeDecision {
  plan: BatchPlan;
  run: boolean;
  /** What was done to the files, for the index. */
  notes: string[];
}

export async function prepareResume(out: string, plan: BatchPlan): Promise<ResumeDecision> {
  const notes: string[] = [];
  const md = resultPath(out, plan.id);
  const partial = partialPath(out, plan.id);
  const partialText = await readOrNull(partial);
  if (partialText !== null) {
    if (endsWithSentinel(partialText) && !(await pathExists(md))) {
      await rename(partial, md);
      notes.push(`resume: promoted ${plan.id}.md.partial, which was complete, to ${plan.id}.md`);
    } else {
      // Complete but a .md exists too: a stale copy. Otherwise the run was cut short.
      const stale = endsWithSentinel(partialText);
      const why = stale ? 'stale' : partialText.trim() === '' ? 'empty' : 'cut-short';
      const moved = await moveAside(out, partial, `${plan.id}.${stale ? 'stale' : 'crashed'}.md.partial`);
      notes.push(`resume: moved the ${why} ${plan.id}.md.partial aside to ${relative(out, moved)}`);
    }
  }
  const mdText = await readOrNull(md);
  if (mdText === null) return { plan, run: true, notes };
  const row = parseResultFile(plan.id, `${plan.id}.md`, mdText);
  if (row.outcome === 'interrupted') {
    const moved = await moveAside(out, md, `${plan.id}.interrupted.md`);
    notes.push(`resume: ${plan.id} was interrupted; its result moved to ${relative(out, moved)} and the plan ran again`);
    return { plan, run: true, notes };
  }
  return { plan, run: false, notes };
}
