// What a run lets others do at its turning points (docs/config.md): hooks before and after each
// iteration and at the outcome, notifications delivered before the process exits. The loop only
// awaits these calls; what they do (shell hooks, webhooks) lives in notify/.
import type { Decision } from '../signals/index.js';
import type { RunBus } from './bus.js';
import type { ConfigLayer } from './run-config.js';
import type { RunResult } from './types.js';

/** The facts of one run, known once its directory is chosen. */
export interface RunFacts {
  runId: string;
  runDir: string;
  plan: string;
  planPath: string;
  cwd: string;
  mode: 'new' | 'resume';
}

export interface RunLifecycle {
  beforeIteration(iteration: number): Promise<void>;
  /** Resolves to a reason when the run should stop after this iteration (docs/config.md: after_iteration). */
  afterIteration(iteration: number, decision: Decision['kind']): Promise<string | undefined>;
  /**
   * After result.json is written: on_outcome hooks, then deliveries still under way, within a
   * bound. Warnings it has go on the bus; the run rewrites result.json with them.
   */
  end(result: RunResult): Promise<void>;
}

/** Made once per run; it may subscribe to the bus and put warnings on it. */
export type RunLifecycleFactory = (facts: RunFacts, bus: RunBus) => RunLifecycle;

/** Extras a caller (the CLI, a batch) hands a run beyond its options. */
export interface RunExtras {
  /** The project's config file: agents, defaults. */
  project?: ConfigLayer;
  lifecycle?: RunLifecycleFactory;
  /** Environment variables the agent must not receive (the config's secrets). */
  hideEnv?: readonly string[];
}
