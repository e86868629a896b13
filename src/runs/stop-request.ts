// Asking a run to stop after its current iteration (docs/loop.md#stopping-a-run-politely): the
// `stop` file in its run directory. One place for `ralph stop` and the page's stop button.
import { writeFileSync } from 'node:fs';
import { UsageError } from '../errors.js';
import type { RunPaths } from './paths.js';
import { viewRun } from './run-view.js';

export type StopAnswer = { asked: true; runId: string; file: string } | { asked: false; runId: string; health: string };

export function requestStop(paths: RunPaths, now = new Date()): StopAnswer {
  const view = viewRun(paths, now.getTime());
  if (view.health !== 'running' && view.health !== 'stale') return { asked: false, runId: view.runId, health: view.health };
  try {
    writeFileSync(paths.stopRequest, `stop requested at ${now.toISOString()}\n`);
  } catch (error) {
    throw new UsageError(`cannot write the stop request ${paths.stopRequest}: ${(error as Error).message}`, 'Remove whatever is in its place, or stop the run with Ctrl+C / SIGTERM.');
  }
  return { asked: true, runId: view.runId, file: paths.stopRequest };
}
