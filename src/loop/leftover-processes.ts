// When an iteration ends, every process of the run is stopped (docs/hostile.md "Processes of a
// run"): whatever the agent left running, in its tree or outside it (setsid), found by the
// RALPH_RUN_ID every process of the run inherits. What was stopped is reported as an event.
import { DEFAULTS, RALPH_ENV } from '../contract.js';
import { findProcesses, stopProcesses } from '../executors/process-tree.js';
import type { RunBus } from './bus.js';

export async function stopLeftovers(runId: string, iteration: number, bus: RunBus, keep: number[] = [], graceMs: number = DEFAULTS.killGraceMs): Promise<void> {
  const stopped = await stopProcesses({ marker: { name: RALPH_ENV.runId, value: runId }, keep }, graceMs);
  if (stopped.length === 0) return;
  bus.emitEvent({ type: 'processes-stopped', iteration, processes: stopped.map((p) => ({ pid: p.pid, command: p.comm })) });
}

/** On the way out of a second Ctrl+C: no await will run, so KILL at once, synchronously. */
export function killLeftoversNow(runId: string): void {
  for (const p of findProcesses({ marker: { name: RALPH_ENV.runId, value: runId } })) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
