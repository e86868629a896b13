// Where a run's files live (docs/files.md#the-run-directory). One place, so nothing else joins these names.
import { join, resolve } from 'node:path';
import { RUN_FILES } from '../contract.js';
import { ralphDir } from './project-root.js';

export interface RunPaths {
  dir: string;
  status: string;
  events: string;
  findings: string;
  result: string;
  blocked: string;
  state: string;
  stopRequest: string;
  iterations: string;
  transcript(iteration: number): string;
  /** Where signal files whose claim was rejected are moved. */
  rejected(iteration: number): string;
}

/** `.ralph/runs` at the root of the project `cwd` lies in (project-root.ts). */
export function runsRoot(cwd: string): string {
  return join(ralphDir(cwd), RUN_FILES.runs);
}

/** `.ralph/batches` at the root of the project `cwd` lies in: batches started without --out. */
export function batchesRoot(cwd: string): string {
  return join(ralphDir(cwd), RUN_FILES.batches);
}

/** `.ralph/stop` of the project: asks every run there to stop after its iteration. */
export function globalStopRequest(cwd: string): string {
  return join(ralphDir(cwd), RUN_FILES.stopRequest);
}

export function runPaths(dir: string): RunPaths {
  const d = resolve(dir);
  const iterations = join(d, RUN_FILES.iterations);
  return {
    dir: d,
    status: join(d, RUN_FILES.status),
    events: join(d, RUN_FILES.events),
    findings: join(d, RUN_FILES.findings),
    result: join(d, RUN_FILES.result),
    blocked: join(d, RUN_FILES.blocked),
    state: join(d, 'state.json'),
    stopRequest: join(d, RUN_FILES.stopRequest),
    iterations,
    transcript: (n) => join(iterations, `${n}.log`),
    rejected: (n) => join(iterations, String(n)),
  };
}
