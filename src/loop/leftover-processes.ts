// When an iteration ends, every process of the run is stopped (docs/hostile.md "Processes of a
// run"): whatever the agent left running, in its tree or outside it (setsid), found by the
// RALPH_RUN_TOKEN every process of the run inherits. What was stopped is reported as an event.
import { DEFAULTS, RALPH_ENV } from '../contract.js';
import { findProcesses, stopProcesses, type ProcessMarker } from '../executors/process-tree.js';
import type { RunState } from '../runs/run-state.js';
import type { RunBus } from './bus.js';

/**
 * What marks the run's processes: its random token. A run id alone is not unique (two runs in
 * `--run-dir` folders of the same name share it), and one run must never stop another's agent.
 * Runs from before the token existed are found by their run id.
 */
export function processMarker(state: Pick<RunState, 'runId' | 'runToken'>): ProcessMarker {
  return state.runToken ? { name: RALPH_ENV.runToken, value: state.runToken } : { name: RALPH_ENV.runId, value: state.runId };
}

export async function stopLeftovers(marker: ProcessMarker, iteration: number, bus: RunBus, keep: number[] = [], graceMs: number = DEFAULTS.killGraceMs): Promise<void> {
  const stopped = await stopProcesses({ marker, keep }, graceMs);
  if (stopped.length === 0) return;
  bus.emitEvent({ type: 'processes-stopped', iteration, processes: stopped.map((p) => ({ pid: p.pid, command: p.comm })) });
}

/** On the way out of a second Ctrl+C: no await will run, so KILL at once, synchronously. */
export function killLeftoversNow(marker: ProcessMarker): void {
  for (const p of findProcesses({ marker })) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
