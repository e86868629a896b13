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

export const LOOP_COMPLETE_LINE = 'LOOP_COMPLETE';

/** Why a line that carries a signal is not one (docs/parser.md "Near misses"). */
export const NEAR_MISS_REASONS = [
  'not_alone',
  'markdown',
  'wrong_case',
  'unknown_name',
  'markers',
  'malformed',
  'unclosed_fence',
  'unclosed_observation',
] as const;
export type NearMissReason = (typeof NEAR_MISS_REASONS)[number];

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
  /** `.ralph/batches/<batch>`: a batch's folder when no --out is given. */
  batches: 'batches',
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
  /**
   * A random token of the run, unique even where two runs share a run id (`--run-dir` folders of
   * the same name): what finds the run's leftover processes (docs/hostile.md).
   */
  runToken: 'RALPH_RUN_TOKEN',
} as const;

export const DEFAULTS = {
  maxIterations: 20,
  /**
   * A run left overnight ends by itself (docs/first-hour.md); `--max-runtime none` lifts it.
   * Cost has no default: no amount is safe without knowing the price and the work.
   */
  maxRuntimeMs: 8 * 3600_000,
  maxBailouts: 3,
  silenceTimeoutMs: 10 * 60_000,
  contextBudget: 150_000,
  /** The anthropic executor's SDK retries of a failed request (docs/executors.md). */
  maxRetries: 2,
  killGraceMs: 5_000,
  signalGraceMs: 10_000,
  /** Total waiting for usage limits in one run (and in each resumed session). */
  maxWaitMs: 6 * 3_600_000,
  /** Iterations in a row that end with no decision and no progress. */
  maxStalls: 3,
  verifyTimeoutMs: 10 * 60_000,
  maxLineBytes: 1024 * 1024,
  /** One iteration's transcript keeps at most this much, head and tail (docs/hostile.md). */
  maxLogBytes: 100 * 1024 * 1024,
} as const;

/** The project config file (docs/config.md), found from the working directory upward. */
export const CONFIG_FILE = 'ralph.config.yaml';

/** What a notification is about (docs/config.md); targets filter on these names. */
export const NOTIFY_EVENTS = ['ended', 'blocked', 'waiting', 'resumed', 'batch_ended'] as const;
export type NotifyEventName = (typeof NOTIFY_EVENTS)[number];

export const NOTIFY = {
  /** Version of the JSON payload sent to webhooks, commands and hooks. */
  payloadVersion: 1,
  /** How long one delivery attempt may take. */
  attemptTimeoutMs: 10_000,
  /** How long a notification is retried (with backoff) before it is given up with a warning. */
  retryWindowMs: 60_000,
  /** At the end of a run or batch, how long ralph waits for deliveries still under way. */
  flushMs: 5_000,
} as const;

/** Lifecycle hooks (docs/config.md). */
export const HOOK_NAMES = ['before_iteration', 'after_iteration', 'on_outcome', 'after_plan', 'after_batch'] as const;
export type HookName = (typeof HOOK_NAMES)[number];
export const HOOKS = {
  /** Default time one hook command may run before it is stopped. */
  timeoutMs: 60_000,
  /** An `after_iteration` hook exiting with this code stops the run after that iteration. */
  stopExitCode: 3,
  /**
   * Whether an interrupted run stops the hook (and skips the ones not yet started). on_outcome
   * runs to its end: it reports the interruption.
   */
  interruptible: {
    before_iteration: true,
    after_iteration: true,
    on_outcome: false,
    after_plan: true,
    after_batch: true,
  } satisfies Record<HookName, boolean>,
} as const;

/**
 * The variables ralph sets for hooks and command targets (docs/config.md). `${NAME}` of one of
 * these in the config file is left for the shell: it has a value only when the hook runs.
 */
export const FACT_VARS = [
  ...Object.values(RALPH_ENV),
  'RALPH_HOOK',
  'RALPH_PLAN_ID',
  'RALPH_CWD',
  'RALPH_DECISION',
  'RALPH_OUTCOME',
  'RALPH_EXIT_CODE',
  'RALPH_REASON',
  'RALPH_EVENT',
  'RALPH_SUMMARY_TEXT',
  'RALPH_BATCH_ID',
  'RALPH_BATCH_OUT',
  'RALPH_RESULT_FILE',
  'RALPH_COMPLETE',
  'RALPH_TOTAL',
] as const;

/** An inclusive range a numeric setting must fall in (durations in ms). */
export interface Range {
  min: number;
  max: number;
}

const SECOND = 1_000;
const HOUR = 3_600 * SECOND;
const DAY = 24 * HOUR;

/**
 * The useful range of every numeric setting, for flags and front matter alike
 * (docs/hostile.md "Numbers"). Past these a value is a typo, not a wish.
 */
export const LIMITS = {
  maxIterations: { min: 1, max: 10_000 },
  maxBailouts: { min: 0, max: 1_000 },
  maxCostUsd: { min: 0, max: 100_000 },
  maxRuntimeMs: { min: SECOND, max: 30 * DAY },
  silenceTimeoutMs: { min: 100, max: 7 * DAY },
  iterationTimeoutMs: { min: 100, max: 7 * DAY },
  verifyTimeoutMs: { min: 100, max: DAY },
  signalGraceMs: { min: 1, max: HOUR },
  contextBudget: { min: 1, max: 10_000_000 },
  maxRetries: { min: 0, max: 100 },
  maxLogBytes: { min: 1024, max: 1024 ** 4 },
  concurrency: { min: 1, max: 256 },
  planTimeoutMs: { min: 100, max: 30 * DAY },
  maxWaitMs: { min: SECOND, max: 30 * DAY },
  maxStalls: { min: 0, max: 10_000 },
} as const satisfies Record<string, Range>;

/** Plan ids name files (`<id>.md.partial` in a batch): at most this many UTF-8 bytes. */
export const MAX_PLAN_ID_BYTES = 100;

/** Queued batches (docs/queue.md): the BullMQ queue every coordinator and worker share, and ralph's own keys beside it. */
export const QUEUE = {
  /** The BullMQ queue name. */
  name: 'ralph',
  /** Prefix of ralph's per-batch keys: `<prefix><batch id>:<suffix>`. */
  keyPrefix: 'ralph:batch:',
  keys: { attempts: 'attempts', handbacks: 'handbacks', reports: 'reports', cancel: 'cancel', warnings: 'warnings', news: 'news', alive: 'alive' },
  /** BullMQ attempts per job: the first run and the one retry (docs/queue.md). */
  attempts: 2,
  /** Bound on connecting to Redis before anything is enqueued. */
  connectTimeoutMs: 5_000,
  /** Bound on `git ls-remote` when the coordinator checks the remote. */
  remoteCheckTimeoutMs: 20_000,
  /** A worker's workdir lock not touched for this long belongs to a worker that is gone (docs/queue.md). */
  workdirLockStaleMs: 30_000,
  /** BullMQ's defaults for a worker's job lock and the stalled-job check. */
  lockDurationMs: 30_000,
  stalledIntervalMs: 30_000,
  /** How long our per-batch keys and finished jobs stay in Redis. */
  keepSeconds: 14 * 24 * 3600,
  /** BullMQ's key prefix (its default): a job's lock, the fencing token of its attempt, is `<prefix>:<name>:<job id>:lock`. */
  bullPrefix: 'bull',
  /** The newest format of job data this ralph writes and reads (docs/queue.md "What lives in Redis"): a job with checkpoints. */
  jobFormat: 3,
  /** The format of a job without checkpoints, which workers from before checkpoints read too. */
  plainJobFormat: 2,
  /** A worker whose workdir has less free space than this stops taking jobs (docs/queue.md). */
  minFreeBytes: 8 * 1024 * 1024,
} as const;

/**
 * The npm package ralph is published as (the command it installs stays `ralph`): the name `ralph`
 * on the registry belongs to an unrelated package (docs/first-hour.md).
 */
export const PACKAGE_NAME = 'ralph-loop-cli';

/** The executors, and the stream formats the command executor reads (docs/executors.md). */
export const EXECUTOR_NAMES = ['anthropic', 'command'] as const;
export const STREAM_FORMATS = ['text', 'claude-json', 'codex-json', 'gemini-json', 'opencode-json', 'qwen-json', 'cursor-json', 'amp-json'] as const;
