// What the parts of a run (settling an iteration, the acceptance gate, the tasks' checks, the end
// of the run) share with the run itself: its plan, settings, state and files, and the ways it
// reports (events, warnings, STATUS.json). PlanRun is the one implementation.
import type { Outcome } from '../contract.js';
import type { Plan } from '../plan/index.js';
import type { Templates } from '../prompts/templates.js';
import type { RunPaths } from '../runs/paths.js';
import type { RunState } from '../runs/run-state.js';
import type { CommandSandbox } from '../sandbox/types.js';
import type { CheckResult } from './checks.js';
import type { Clock } from './clock.js';
import type { RunEvent } from './events.js';
import type { RunConfig } from './run-config.js';

/** How a run ends: one outcome and why. */
export type Ending = { outcome: Outcome; reason: string };

/** What the iteration being settled leaves for its receipt. */
export interface IterationLedger {
  checks: CheckResult[];
  rejection: string | null;
}

export interface RunContext {
  readonly plan: Plan;
  readonly config: RunConfig;
  readonly state: RunState;
  readonly paths: RunPaths;
  readonly templates: Templates;
  readonly clock: Clock;
  /** Aborted by an interrupt or a run-wide limit. */
  readonly runSignal: AbortSignal;
  /** Where verify commands and checks run: the agent's sandbox, when there is one. */
  readonly verifySandbox: CommandSandbox | undefined;
  /** Notes for the next prompt, gathered while an iteration is settled. */
  readonly pendingFeedback: string[];
  readonly ledger: IterationLedger;
  emit(e: RunEvent): void;
  warn(message: string, iteration?: number): void;
  /** Rewrites STATUS.json (and state.json) with this state. */
  status(state: string): void;
  resumeCommand(): string;
  /** The run was aborted: interrupted, or a run-wide limit (max_runtime). */
  interruptedOrLimit(): Ending;
  /** The next iteration starts a fresh context, told why. */
  startFresh(reason: string): void;
}
