// The schema of ralph.config.yaml (docs/config.md), in zod. Keys are snake_case as in plans'
// front matter; every object is strict so that a typo is an error that names its line.
import { z } from 'zod';
import { HOOK_NAMES, LIMITS, NOTIFY_EVENTS, OUTCOMES, type Range } from '../contract.js';
import { STREAM_FORMATS } from '../plan/types.js';
import { formatDuration, parseDuration } from '../util/duration.js';
import { readSandboxValue, SANDBOX_KEYS } from '../sandbox/settings.js';

const nonEmpty = z.string().trim().min(1, 'must not be empty');

const durationMs = z.union([z.string(), z.number()]).transform((value, ctx) => {
  const ms = parseDuration(value);
  if (ms === undefined || ms <= 0) {
    ctx.addIssue({ code: 'custom', message: `expected a duration such as 90m, 45s or 1h30m (a bare number is seconds), got ${JSON.stringify(value)}` });
    return z.NEVER;
  }
  return ms;
});


// The same ranges as flags and front matter (src/contract.ts LIMITS, docs/hostile.md "Numbers").
const intIn = (r: Range) => z.number().int('expected a whole number').min(r.min, `expected a whole number from ${r.min} to ${r.max}`).max(r.max, `expected a whole number from ${r.min} to ${r.max}`);
const durationIn = (r: Range) =>
  durationMs.refine((ms) => ms >= r.min && ms <= r.max, { message: `expected a duration from ${formatDuration(r.min)} to ${formatDuration(r.max)}` });

const command = z
  .array(z.string())
  .min(1, 'is empty; give the program and its arguments, e.g. [claude, -p]')
  .refine((c) => c.length === 0 || c[0]!.trim() !== '', 'the program name is empty');

export const agentSchema = z.strictObject({
  command,
  stream_format: z.enum(STREAM_FORMATS).default('text'),
});

export const defaultsSchema = z.strictObject({
  model: nonEmpty.optional(),
  max_iterations: intIn(LIMITS.maxIterations).optional(),
  max_bailouts: intIn(LIMITS.maxBailouts).optional(),
  max_runtime: durationIn(LIMITS.maxRuntimeMs).optional(),
  max_cost_usd: z.number().positive('expected an amount in US dollars above 0').max(LIMITS.maxCostUsd.max, `expected at most ${LIMITS.maxCostUsd.max} US dollars`).optional(),
  silence_timeout: durationIn(LIMITS.silenceTimeoutMs).optional(),
  iteration_timeout: durationIn(LIMITS.iterationTimeoutMs).optional(),
  signal_grace: durationIn(LIMITS.signalGraceMs).optional(),
  context_budget: intIn(LIMITS.contextBudget).optional(),
  max_retries: intIn(LIMITS.maxRetries).optional(),
  max_wait: durationIn(LIMITS.maxWaitMs).optional(),
  max_stalls: intIn(LIMITS.maxStalls).optional(),
  /** Files every plan's checks depend on (docs/plans.md#the-tamper-guard), besides a plan's own protect:. */
  protect: z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(nonEmpty)).optional(),
  // batch
  concurrency: intIn(LIMITS.concurrency).optional(),
  out: nonEmpty.optional(),
  isolate: z.enum(['worktree', 'none']).optional(),
  plan_timeout: durationIn(LIMITS.planTimeoutMs).optional(),
});

const filters = {
  /** Which notifications this target gets (default: all). */
  events: z.array(z.enum(NOTIFY_EVENTS)).min(1, 'list at least one event, or leave `events` out for all').optional(),
  /** For `ended`: only these outcomes (default: any). */
  outcomes: z.array(z.enum(OUTCOMES)).min(1, 'list at least one outcome, or leave `outcomes` out for any').optional(),
};

const url = z.string().refine((u) => u === '' || /^https?:\/\/[^\s/]+/.test(u), 'expected an http:// or https:// URL');
const headers = z.record(z.string(), z.string());

/** Which key names the kind of target; each kind takes some of the other keys. */
export const TARGET_KINDS = ['webhook', 'slack', 'ntfy', 'command'] as const;
const ALLOWED_WITH: Record<(typeof TARGET_KINDS)[number], readonly string[]> = {
  webhook: ['secret', 'headers'],
  slack: [],
  ntfy: ['headers'],
  command: ['timeout'],
};

// One object with every key, checked by hand, rather than a union: a union's errors say
// "invalid input" where a person needs "`secret` only goes with webhook".
export const notifySchema = z
  .strictObject({
    webhook: url.optional(),
    slack: url.optional(),
    ntfy: url.optional(),
    command: z.string().optional(),
    /** HMAC-SHA256 key: the body is signed in X-Ralph-Signature-256. */
    secret: z.string().optional(),
    headers: headers.optional(),
    timeout: durationMs.optional(),
    ...filters,
  })
  .superRefine((entry, ctx) => {
    const kinds = TARGET_KINDS.filter((k) => entry[k] !== undefined);
    if (kinds.length !== 1) {
      ctx.addIssue({ code: 'custom', message: kinds.length === 0 ? `a target needs one of ${TARGET_KINDS.join(', ')}` : `a target is one of ${TARGET_KINDS.join(', ')}, not several (${kinds.join(', ')}): make one entry each` });
      return;
    }
    const kind = kinds[0]!;
    for (const key of ['secret', 'headers', 'timeout'] as const) {
      if (entry[key] !== undefined && !ALLOWED_WITH[kind].includes(key)) {
        ctx.addIssue({ code: 'custom', path: [key], message: `\`${key}\` does not apply to a ${kind} target` });
      }
    }
    if (kind === 'command' && entry.command!.trim() === '') ctx.addIssue({ code: 'custom', path: ['command'], message: 'must not be empty' });
  });

const hookSchema = z.preprocess(
  (v) => (typeof v === 'string' ? { run: v } : v),
  z.strictObject({ run: nonEmpty, timeout: durationMs.optional() }, { error: (issue) => (issue.code === 'invalid_type' ? 'expected a shell command, or { run: <command>, timeout: <duration> }' : undefined) }),
);
const hookList = z.preprocess((v) => (Array.isArray(v) ? v : [v]), z.array(hookSchema));

export const hooksSchema = z.strictObject(
  Object.fromEntries(HOOK_NAMES.map((h) => [h, hookList.optional()])) as Record<(typeof HOOK_NAMES)[number], z.ZodOptional<typeof hookList>>,
);

/** `deliver:` (docs/deliver.md): pull requests for plans' branches, and checkpoints. */
export const deliverSchema = z.strictObject({
  /** true: a pull request for each accepted plan; draft: also a draft for failed, exhausted and blocked ones. */
  pr: z.union([z.boolean(), z.enum(['draft', 'ready', 'off'])]).optional(),
  /** The branch pull requests go to (default: the branch the run started on, else the repository's default branch). */
  base: nonEmpty.optional(),
  /** The git remote to push to (default: the branch's upstream remote, else origin, else the only remote). */
  remote: nonEmpty.optional(),
  /** GitHub Enterprise Server: its web address (https://github.example.com); the API is at <url>/api/v3. */
  github_url: url.optional(),
  /** The REST API's base URL, when it is not where github_url says. */
  api_url: url.optional(),
  /** Commit after every iteration that changed files (--checkpoint). */
  checkpoint: z.boolean().optional(),
  /** With checkpoints: squash them into one commit when the plan ends. */
  squash: z.boolean().optional(),
});

/** `land:` (docs/deliver.md "Landing"): how `ralph land` applies and checks branches. */
export const landSchema = z.strictObject({
  /** Shell commands run on the integrated tree besides the plan's verify commands, e.g. [npm test]. */
  checks: z.array(nonEmpty).optional(),
  /** rebase: the branch's commits replayed on the target; merge: a merge commit. */
  strategy: z.enum(['rebase', 'merge']).optional(),
  /** The branch that is moved (default: the current branch). */
  target: nonEmpty.optional(),
  /** Through the forge (--forge): how the pull request is merged. */
  merge_method: z.enum(['merge', 'squash', 'rebase']).optional(),
  /** Each check's limit. */
  check_timeout: durationMs.optional(),
});

// `sandbox: on|off|auto`, or a mapping (docs/sandbox.md); read by the same function as a plan's.
const sandboxSchema = z.unknown().transform((value, ctx) => {
  const read = readSandboxValue(value, 'sandbox');
  if ('problem' in read) {
    ctx.addIssue({ code: 'custom', message: read.problem.replace(/^sandbox(\.\w+)?: /, '') });
    return z.NEVER;
  }
  return read.layer;
});

export const configSchema = z.strictObject({
  /** The agent used when neither flags nor the plan choose an executor. */
  agent: nonEmpty.optional(),
  agents: z.record(z.string(), agentSchema).optional(),
  defaults: defaultsSchema.optional(),
  notify: z.array(notifySchema).optional(),
  hooks: hooksSchema.optional(),
  deliver: deliverSchema.optional(),
  land: landSchema.optional(),
  sandbox: sandboxSchema.optional(),
});

export type ConfigFileData = z.output<typeof configSchema>;
export type NotifyEntry = z.output<typeof notifySchema>;

/** The keys each mapping accepts, for "did you mean" (by path of the mapping, `*` for any name). */
export const KNOWN_KEYS: Record<string, readonly string[]> = {
  '': Object.keys(configSchema.shape),
  defaults: Object.keys(defaultsSchema.shape),
  'agents.*': Object.keys(agentSchema.shape),
  hooks: HOOK_NAMES,
  'hooks.*': ['run', 'timeout'],
  'hooks.*.*': ['run', 'timeout'],
  deliver: Object.keys(deliverSchema.shape),
  land: Object.keys(landSchema.shape),
  sandbox: SANDBOX_KEYS,
  'notify.*': ['webhook', 'slack', 'ntfy', 'command', 'secret', 'headers', 'events', 'outcomes', 'timeout'],
};
