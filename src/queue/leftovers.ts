// Nothing of an attempt outlives it (docs/queue.md "Processes"). The worker's own agent command
// runs under `setpriv --pdeathsig KILL` (util-linux) where there is one, so the kernel ends the
// agent when the worker dies (Node cannot ask for that itself). And a worker marks itself with its
// workdir (`RALPH_WORKER_DIR=<workdir>`), which every agent, verify command and hook it starts
// inherits. A new worker on the same workdir stops every process an earlier life left (say, agents
// orphaned when that worker was killed), and a checkout is reused only once no marked process is
// left in it, so a straggler can never write into the next plan's checkout.
import { accessSync, constants, readlinkSync } from 'node:fs';
import { delimiter, join, sep } from 'node:path';
import { formatFromCommand } from '../agents/index.js';
import { cannotStartReason } from '../executors/command/can-start.js';
import { findProcesses, stopProcesses } from '../executors/process-tree.js';
import type { SharedExecOptions } from '../batch/index.js';

function findSetpriv(): string | null {
  if (process.platform !== 'linux') return null;
  for (const dir of ['/usr/bin', '/bin', ...(process.env.PATH ?? '').split(delimiter)]) {
    const path = join(dir, 'setpriv');
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here
    }
  }
  return null;
}

const SETPRIV = findSetpriv();

/**
 * The worker's own agent command, run so that it dies with the worker: under setpriv's
 * parent-death signal, its stream format decided from the command as given. A command that
 * cannot start is left as it is, so the run reports why in its own words.
 */
export function diesWithWorker(command: string[], streamFormat: SharedExecOptions['streamFormat'], cwd: string): Pick<SharedExecOptions, 'command' | 'streamFormat'> {
  const format = streamFormat ?? formatFromCommand(command);
  if (SETPRIV === null || command.length === 0 || cannotStartReason(command[0]!, cwd, process.env) !== null) return { command, ...(format ? { streamFormat: format } : {}) };
  return { command: [SETPRIV, '--pdeathsig', 'KILL', '--', ...command], ...(format ? { streamFormat: format } : {}) };
}

export const WORKER_MARKER = 'RALPH_WORKER_DIR';

/** Marks this process, so everything it starts carries the mark. */
export function markWorkerProcess(workdir: string): void {
  process.env[WORKER_MARKER] = workdir;
}

const marker = (workdir: string) => ({ name: WORKER_MARKER, value: workdir });

/** Stops every process of an earlier worker on `workdir` (this one and its ancestors spared); returns how many. */
export async function stopEarlierLife(workdir: string): Promise<number> {
  return (await stopProcesses({ marker: marker(workdir) }, 0)).length;
}

function cwdOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** Stops the marked processes whose working directory is in `checkout` (and their children); returns how many. */
export async function stopLeftoversIn(workdir: string, checkout: string): Promise<number> {
  if (process.platform !== 'linux') return 0;
  const inside = findProcesses({ marker: marker(workdir) }).filter((p) => {
    const cwd = cwdOf(p.pid);
    return cwd !== null && (cwd === checkout || cwd.startsWith(checkout + sep));
  });
  if (inside.length === 0) return 0;
  return (await stopProcesses({ roots: inside.map((p) => p.pid) }, 0)).length;
}
