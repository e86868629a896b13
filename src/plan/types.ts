// The shapes the rest of ralph reads a plan through (docs/plans.md#front-matter). Front-matter keys are
// snake_case in the file and camelCase here.
import type { SandboxLayer } from '../sandbox/settings.js';

import { EXECUTOR_NAMES, STREAM_FORMATS } from '../contract.js';

/** Values the front matter accepts for `executor` and `stream_format`: the lists live in contract.ts. */
export { EXECUTOR_NAMES, STREAM_FORMATS };

/** When ralph runs the tasks' own `<verify>` commands (docs/plans.md#task-checks). */
export const TASK_CHECK_MODES = ['gate', 'iteration', 'off'] as const;
export type TaskCheckMode = (typeof TASK_CHECK_MODES)[number];

export interface PlanTask {
  name: string;
  /** The `type` attribute of `<task type="auto">`. */
  type?: string;
  files?: string;
  action?: string;
  verify?: string;
  done?: string;
  /** 1-based line of the `<task>` tag in the plan file. */
  line: number;
}

/** Validated front matter. */
export interface PlanConfig {
  id?: string;
  executor?: (typeof EXECUTOR_NAMES)[number];
  command?: string[];
  streamFormat?: (typeof STREAM_FORMATS)[number];
  model?: string;
  maxIterations?: number;
  maxBailouts?: number;
  maxCostUsd?: number;
  maxRuntimeMs?: number;
  silenceTimeoutMs?: number;
  /** Total time the run may wait for usage limits to reset (docs/overnight.md). */
  maxWaitMs?: number;
  /** Iterations in a row without a decision or progress before the run ends no_progress; 0: never. */
  maxStalls?: number;
  verifyTimeoutMs?: number;
  /** As written: relative to the plan's folder (Plan.summaryPath is the resolved one). */
  summary?: string;
  requireSummary: boolean;
  verify: string[];
  blockers: { reject: string[] };
  /** `sandbox:` on, off, auto, or a mapping that loosens the policy for this plan (docs/sandbox.md). */
  sandbox?: SandboxLayer;
  /** When tasks' checks run; undefined: chosen by how long they take (docs/plans.md#task-checks). */
  taskChecks?: TaskCheckMode;
  /** A check that already passes before the run is refused, not only warned about. */
  strictChecks?: boolean;
  /** Globs of files the checks depend on: changing one rejects a completion claim (docs/plans.md#the-tamper-guard). */
  protect?: string[];
  /** The plan means to change the files its checks depend on: the tamper guard is off. */
  allowCheckChanges?: boolean;
}

export interface Plan {
  /** Absolute. */
  path: string;
  /** Absolute folder of the plan. */
  dir: string;
  /** Front matter `id`, else the file's stem. */
  id: string;
  /** The whole file, as read. */
  text: string;
  /** Everything after the front matter. */
  body: string;
  config: PlanConfig;
  tasks: PlanTask[];
  /** Inner text of `<verification>`. */
  verification?: string;
  /** Text under `## Progress`, undefined when the section is absent. */
  progress?: string;
  /** Text under `## Observations`, undefined when the section is absent. */
  observations?: string;
  /** Absolute path of the summary file this plan's runs must write. */
  summaryPath: string;
  /** Things that are allowed but probably mistakes, e.g. unknown front-matter keys. */
  warnings: string[];
  /** The warnings `ralph validate --strict` turns into errors: unknown keys, no check at all. */
  strictWarnings: string[];
}
