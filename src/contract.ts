// Every name that users, their scripts and prompt templates depend on (docs/) is spelled
// here once; no other module writes these as string literals.

export const SIGNAL_NAMES = [
  'PLAN_COMPLETE',
  'BAILOUT',
  'TASK_FAILED',
  'PLAN_FAILED',
  'BUILD_FAILED',
  'TEST_FAILED',
  'BLOCKED',
] as const;
export type SignalName = (typeof SIGNAL_NAMES)[number];
/** SIGNAL.BAILOUT === 'BAILOUT': for code that must name one signal. */
export const SIGNAL = Object.freeze(Object.fromEntries(SIGNAL_NAMES.map((n) => [n, n]))) as { readonly [K in SignalName]: K };

export type SignalClass = 'complete' | 'bailout' | 'failed' | 'blocked';

/** Class of each signal and the names of its arguments (docs/signals.md#signal-grammar). */
export const SIGNAL_GRAMMAR: Record<SignalName, { class: SignalClass; args: readonly string[] }> = {
  PLAN_COMPLETE: { class: 'complete', args: [] },
  BAILOUT: { class: 'bailout', args: ['reason'] },
  TASK_FAILED: { class: 'failed', args: ['task_name'] },
  PLAN_FAILED: { class: 'failed', args: ['check'] },
  BUILD_FAILED: { class: 'failed', args: ['project'] },
  TEST_FAILED: { class: 'failed', args: ['project', 'count'] },
  BLOCKED: { class: 'blocked', args: ['reason'] },
};

/** Higher wins when one iteration produced several decisions. */
export const CLASS_PRIORITY: Record<SignalClass, number> = {
  blocked: 4,
  failed: 3,
  bailout: 2,
  complete: 1,
};

export const SIGNAL_FENCE = '###';
export const LOOP_COMPLETE_LINE = 'LOOP_COMPLETE';

export const SIGNAL_FILES = {
  taskComplete: 'TASK_COMPLETE',
  taskCompleteMd: 'TASK_COMPLETE.md',
  blocked: 'BLOCKED.md',
  prUrl: 'PR_URL',
} as const;
export const STALE_SIGNAL_FILES = [
  SIGNAL_FILES.taskComplete,
  SIGNAL_FILES.taskCompleteMd,
  SIGNAL_FILES.blocked,
  SIGNAL_FILES.prUrl,
] as const;
export const TASK_COMPLETE_CHECKBOX = 'TASK_COMPLETE';

export const FLUX_DRIVE_SENTINEL = '<!-- flux-drive:complete -->';

export const OUTCOMES = [
  'complete',
  'failed',
  'blocked',
  'exhausted',
  'off_rails',
  'interrupted',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const EXIT_CODES = {
  complete: 0,
  failed: 1,
  blocked: 2,
  exhausted: 3,
  off_rails: 4,
  usage: 64,
  interrupted: 130,
} as const;

export function exitCodeOf(outcome: Outcome): number {
  return EXIT_CODES[outcome];
}

export const OBSERVATION_TYPES = [
  'bug',
  'stub',
  'api-issue',
  'insight',
  'blocker',
  'technical-debt',
  'assumption',
  'scope-creep',
  'dependency',
  'questionable',
  'already-complete',
  'checkpoint-automated',
  'tooling-friction',
  'test-failed',
  'test-infrastructure',
  'manual-checkpoint-deferred',
] as const;
export type ObservationType = (typeof OBSERVATION_TYPES)[number];

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const ACTIONS = [
  'needs-fix',
  'needs-implementation',
  'needs-plan',
  'needs-investigation',
  'needs-documentation',
  'needs-human-verify',
  'none',
] as const;
export type Action = (typeof ACTIONS)[number];

/** Run directory layout (docs/files.md#the-run-directory). */
export const RUN_FILES = {
  root: '.ralph',
  runs: 'runs',
  status: 'STATUS.json',
  events: 'events.jsonl',
  iterations: 'iterations',
  findings: 'findings.jsonl',
  result: 'result.json',
  blocked: 'BLOCKED.md',
  stopRequest: 'stop',
} as const;

/** Environment handed to a `command` executor (docs/executors.md#environment). */
export const RALPH_ENV = {
  runId: 'RALPH_RUN_ID',
  runDir: 'RALPH_RUN_DIR',
  plan: 'RALPH_PLAN',
  summary: 'RALPH_SUMMARY',
  iteration: 'RALPH_ITERATION',
  freshContext: 'RALPH_FRESH_CONTEXT',
} as const;

export const DEFAULTS = {
  maxIterations: 20,
  /**
   * A run left overnight ends by itself (docs/first-hour.md); `--max-runtime none` lifts it.
   * Cost has no default: no amount is safe without knowing the price and the work.
   */
  maxRuntime: '8h',
  maxRuntimeMs: 8 * 3600_000,
  maxBailouts: 3,
  silenceTimeout: '10m',
  contextBudget: 150_000,
  killGraceMs: 5_000,
  signalGraceMs: 10_000,
  /** Total waiting for usage limits in one run (and in each resumed session). */
  maxWaitMs: 6 * 3_600_000,
  /** Iterations in a row that end with no decision and no progress. */
  maxStalls: 3,
  verifyTimeoutMs: 10 * 60_000,
  maxLineBytes: 1024 * 1024,
} as const;

/**
 * The npm package ralph is published as (the command it installs stays `ralph`): the name `ralph`
 * on the registry belongs to an unrelated package (docs/first-hour.md).
 */
export const PACKAGE_NAME = 'ralph-loop-cli';
