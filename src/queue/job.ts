// What travels through the queue (docs/queue.md): a job per plan (what to run and where to get
// it), the worker's progress on the job, and one report per attempt. Reports live in a hash of
// the batch's own (not only in BullMQ's return value) because a retried attempt ends by failing
// its BullMQ attempt, which carries no value, and a coordinator that was away must still find it.
import { posix } from 'node:path';
import { QUEUE } from '../contract.js';
import type { AttemptOutcome, SharedExecOptions, Verdict } from '../batch/index.js';
import type { RunResult } from '../loop/index.js';
import type { RunFacts } from '../deliver/run-facts.js';
import { seal, unseal, type Sealed } from './seal.js';
import { SANDBOX_MODES } from '../sandbox/settings.js';

/** What a coordinator asks of a worker for one plan, sealed in the job (docs/queue.md "What lives in Redis"). */
export interface QueueJobData {
  batchId: string;
  plan: string;
  /** The plan file, relative to the repository's top folder, with `/` separators. */
  planPath: string;
  /** Where workers clone from, and push the plan's branch to. */
  remote: string;
  /** The commit every plan of the batch starts from. */
  commit: string;
  /**
   * Exec options for every plan: never an agent command (a worker takes that from its own flags,
   * its config or the repository); `cwd` and `promptsDir`, when set, are relative to the
   * repository's top folder.
   */
  exec: SharedExecOptions;
  planTimeoutMs: number | null;
  /** The attempt number this job starts at (later than 1 when a resumed batch runs a plan again). */
  firstAttempt: number;
  /** Host name of the coordinating machine, for the worker's log. */
  coordinator: string;
  /**
   * --checkpoint (docs/deliver.md#checkpoints): a commit after every iteration that changed files;
   * `squash` folds them into the plan's one commit at the end. A job with it is written in the
   * newer format, so a worker from before checkpoints hands it back rather than ignoring it.
   */
  checkpoints?: { squash: boolean };
}

export interface WorkerRef {
  id: string;
  host: string;
  pid: number;
}

/** job.progress while a worker runs the plan: which worker, which attempt, how far. */
export interface JobProgress {
  batchId: string;
  plan: string;
  worker: WorkerRef;
  attempt: number;
  branch: string;
  runDir: string;
  checkout: string;
  startedAt: string;
  iteration: number;
  maxIterations: number;
  /** How the current iteration started (the loop's iteration-start event). */
  fresh: boolean;
  prompt: 'full' | 'condensed' | 'resume' | 'continue';
  at: string;
}

/** The job as stored in BullMQ: the format, the names (for `ralph status`), and the sealed data. */
export interface QueueJob extends Sealed {
  v: number;
  batchId: string;
  plan: string;
}

export interface AttemptReport {
  batchId: string;
  plan: string;
  attempt: number;
  /** False when the job is handed back to BullMQ for its retry, or handed back to the queue. */
  final: boolean;
  /** The attempt was stopped and its job handed back to the queue (it does not count as the retry). */
  handedBack?: boolean;
  outcome: AttemptOutcome;
  reason: string;
  exitCode: number | null;
  iterations: number | null;
  costUsd: number | null;
  verdict: Verdict;
  worker: WorkerRef;
  /** Worker-side paths (the transcripts stay there). */
  runDir: string;
  checkout: string;
  branch: string;
  /** The branch's commit as pushed, or null when nothing was pushed. */
  pushed: string | null;
  pushError: string | null;
  /** result.json of the run, when it ended with one. */
  result: RunResult | null;
  /** findings.jsonl of the run (bounded). */
  findings: string;
  /** What a pull request's body says about the run, read where its files are (docs/deliver.md); absent from older workers. */
  facts?: RunFacts | null;
  /** The per-plan result file of this attempt, sentinel included. */
  text: string;
  endedAt: string;
}

export function jobId(batchId: string, plan: string): string {
  return `${batchId}/${plan}`;
}

export function batchKey(batchId: string, key: keyof typeof QUEUE.keys): string {
  return `${QUEUE.keyPrefix}${batchId}:${QUEUE.keys[key]}`;
}

export function reportField(plan: string, attempt: number): string {
  return `${plan}#${attempt}`;
}

/** How a worker is named to people: `host (pid N)`. */
export function workerName(w: WorkerRef): string {
  return `${w.host} (pid ${w.pid})`;
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const BATCH_ID = /^\d{8}-\d{6}-[0-9a-f]{6}(?:-\d+)?$/;
const COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export function isPlanId(text: unknown): text is string {
  return typeof text === 'string' && text.length <= 200 && SAFE_ID.test(text);
}

export function isBatchId(text: unknown): text is string {
  return typeof text === 'string' && BATCH_ID.test(text);
}

export function isCommit(text: unknown): text is string {
  return typeof text === 'string' && COMMIT.test(text);
}

export function isAttempt(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 1;
}

/** A path inside a checkout: relative, `/`-separated, no `..` step, no control characters. */
export function isInsidePath(text: unknown): text is string {
  if (typeof text !== 'string' || text === '' || text.length > 4096 || CONTROL.test(text) || text.includes('\\')) return false;
  if (posix.isAbsolute(text)) return false;
  const normal = posix.normalize(text);
  return normal !== '..' && !normal.startsWith('../') && text.split('/').every((step) => step !== '..');
}

const EXEC_STRINGS = ['executor', 'agent', 'streamFormat', 'model'] as const;
const EXEC_PATHS = ['cwd', 'promptsDir'] as const;
const EXEC_NUMBERS = [
  'maxIterations',
  'maxBailouts',
  'maxRuntimeMs',
  'maxCostUsd',
  'silenceTimeoutMs',
  'iterationTimeoutMs',
  'maxWaitMs',
  'maxStalls',
  'verifyTimeoutMs',
  'maxLogBytes',
  'contextBudget',
  'maxRetries',
  'signalGraceMs',
] as const;

/** The exec options a job may carry, each checked; anything else (an agent command above all) is a problem. */
export function checkJobExec(exec: unknown): { exec: SharedExecOptions; problem: null } | { exec: null; problem: string } {
  if (typeof exec !== 'object' || exec === null || Array.isArray(exec)) return { exec: null, problem: 'exec is not an object' };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(exec)) {
    if (value === undefined) continue;
    if ((EXEC_STRINGS as readonly string[]).includes(key)) {
      if (typeof value !== 'string' || value.length > 200 || CONTROL.test(value)) return { exec: null, problem: `exec.${key} is not a plain name` };
      if (key === 'agent' && !SAFE_ID.test(value)) return { exec: null, problem: 'exec.agent is not an agent name' };
    } else if ((EXEC_PATHS as readonly string[]).includes(key)) {
      if (!isInsidePath(value)) return { exec: null, problem: `exec.${key} is not a path inside the repository` };
    } else if (key === 'sandbox') {
      if (typeof value !== 'string' || !(SANDBOX_MODES as readonly string[]).includes(value)) return { exec: null, problem: 'exec.sandbox is not a sandbox mode' };
    } else if (key === 'protect') {
      if (!Array.isArray(value) || value.length > 1000 || !value.every((g) => typeof g === 'string' && g.length < 4096 && !CONTROL.test(g))) return { exec: null, problem: 'exec.protect is not a list of globs' };
    } else if ((EXEC_NUMBERS as readonly string[]).includes(key)) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return { exec: null, problem: `exec.${key} is not a number` };
    } else {
      return { exec: null, problem: key === 'command' ? 'a job never carries the agent command' : `exec.${key} is not an option a job may carry` };
    }
    out[key] = value;
  }
  return { exec: out as SharedExecOptions, problem: null };
}

/** The job's data checked field by field: every id, path and number a worker will use. */
export function checkJobData(x: unknown): { data: QueueJobData; problem: null } | { data: null; problem: string } {
  const fail = (problem: string) => ({ data: null, problem });
  if (typeof x !== 'object' || x === null) return fail('the job data is not an object');
  const d = x as Record<string, unknown>;
  if (!isBatchId(d.batchId)) return fail('batchId is not a batch id');
  if (!isPlanId(d.plan)) return fail('plan is not a plan id');
  if (!isInsidePath(d.planPath)) return fail('planPath is not a path inside the repository');
  if (typeof d.remote !== 'string' || d.remote === '' || d.remote.startsWith('-') || d.remote.length > 4096 || CONTROL.test(d.remote)) return fail('remote is not a git URL or path');
  if (typeof d.commit !== 'string' || !COMMIT.test(d.commit)) return fail('commit is not a commit id');
  if (!(d.planTimeoutMs === null || (typeof d.planTimeoutMs === 'number' && Number.isFinite(d.planTimeoutMs) && d.planTimeoutMs > 0))) return fail('planTimeoutMs is not a duration');
  if (!isAttempt(d.firstAttempt)) return fail('firstAttempt is not an attempt number');
  if (typeof d.coordinator !== 'string' || d.coordinator.length > 255) return fail('coordinator is not a host name');
  const exec = checkJobExec(d.exec);
  if (exec.problem !== null) return fail(exec.problem);
  const cp = d.checkpoints as Record<string, unknown> | undefined;
  if (cp !== undefined && (typeof cp !== 'object' || cp === null || Array.isArray(cp) || typeof cp.squash !== 'boolean' || Object.keys(cp).length !== 1)) return fail('checkpoints is not { squash: true|false }');
  return {
    data: {
      batchId: d.batchId,
      plan: d.plan,
      planPath: d.planPath,
      remote: d.remote,
      commit: d.commit,
      exec: exec.exec,
      planTimeoutMs: d.planTimeoutMs as number | null,
      firstAttempt: d.firstAttempt,
      coordinator: d.coordinator.replace(CONTROL, '?'),
      ...(cp !== undefined ? { checkpoints: { squash: cp.squash as boolean } } : {}),
    },
    problem: null,
  };
}

/** The format a job is written in: the older one unless it needs what only newer workers do. */
function formatOf(data: QueueJobData): number {
  return data.checkpoints !== undefined ? QUEUE.jobFormat : QUEUE.plainJobFormat;
}

export function sealJob(secret: string, data: QueueJobData): QueueJob {
  return { v: formatOf(data), batchId: data.batchId, plan: data.plan, ...seal(secret, 'job', data) };
}

export type OpenedJob =
  | { kind: 'ok'; data: QueueJobData }
  /** A format newer than this ralph's: hand it back for a newer worker. */
  | { kind: 'newer'; format: string }
  /** Not sealed with this secret (or an older, unsealed format), or not a valid job: refuse it, run nothing. */
  | { kind: 'refused'; why: string };

export function openJob(secret: string, raw: unknown): OpenedJob {
  const v = (raw as { v?: unknown } | null)?.v;
  if (typeof v === 'number' && Number.isInteger(v) && v > QUEUE.jobFormat) return { kind: 'newer', format: String(v) };
  if (v !== QUEUE.jobFormat && v !== QUEUE.plainJobFormat) return { kind: 'refused', why: `its format (${String(v).slice(0, 20)}) carries no seal` };
  const opened = unseal(secret, 'job', raw);
  if (opened === null) return { kind: 'refused', why: "it is not sealed with this worker's queue secret" };
  const checked = checkJobData(opened);
  if (checked.problem !== null) return { kind: 'refused', why: `its data is not valid: ${checked.problem}` };
  const r = raw as QueueJob;
  if (r.batchId !== checked.data.batchId || r.plan !== checked.data.plan) return { kind: 'refused', why: 'its names differ from its sealed data' };
  if (v !== formatOf(checked.data)) return { kind: 'refused', why: `its format (${v}) does not match its data` };
  return { kind: 'ok', data: checked.data };
}

/**
 * A job's progress for display only (`ralph status`, `ralph serve`), which need no secret: the
 * sealed body read as it is (every field untrusted, to be shown on one plain line), or {}.
 */
export function progressForDisplay(raw: unknown): Partial<JobProgress> {
  const body = (raw as { body?: unknown } | null)?.body;
  if (typeof body !== 'string') return {};
  try {
    const p = JSON.parse(body) as unknown;
    return typeof p === 'object' && p !== null ? (p as Partial<JobProgress>) : {};
  } catch {
    return {};
  }
}

/** A worker's progress, opened and checked (the coordinator writes files from it). */
export function openProgress(secret: string, raw: unknown, batchId: string, plan: string): JobProgress | null {
  const p = unseal(secret, 'progress', raw) as Partial<JobProgress> | null;
  if (!p || typeof p !== 'object' || p.batchId !== batchId || p.plan !== plan || !isAttempt(p.attempt) || !isWorkerRef(p.worker)) return null;
  const strings = [p.branch, p.runDir, p.checkout, p.startedAt, p.at] as unknown[];
  if (!strings.every((t) => typeof t === 'string' && t.length < 4096)) return null;
  if (typeof p.iteration !== 'number' || typeof p.maxIterations !== 'number') return null;
  return p as JobProgress;
}

function isWorkerRef(w: unknown): w is WorkerRef {
  const r = w as Partial<WorkerRef> | null;
  return typeof r === 'object' && r !== null && typeof r.id === 'string' && typeof r.host === 'string' && r.host.length < 256 && typeof r.pid === 'number';
}

/** A worker's report of one attempt, checked: the ids and numbers the coordinator builds file names from. */
export function checkReport(r: unknown, batchId: string, field: string): AttemptReport | null {
  const x = r as Partial<AttemptReport> | null;
  if (typeof x !== 'object' || x === null) return null;
  if (x.batchId !== batchId || !isPlanId(x.plan) || !isAttempt(x.attempt) || reportField(x.plan, x.attempt) !== field) return null;
  if (typeof x.final !== 'boolean' || typeof x.outcome !== 'string' || typeof x.text !== 'string' || typeof x.findings !== 'string' || !isWorkerRef(x.worker)) return null;
  if (typeof x.runDir !== 'string' || typeof x.checkout !== 'string' || typeof x.branch !== 'string') return null;
  return x as AttemptReport;
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const orNull = <T>(check: (v: unknown) => v is T) => (v: unknown): v is T | null => v === null || check(v);
const listOf = <T>(v: unknown, check: (x: Record<string, unknown>) => boolean): v is T[] => Array.isArray(v) && v.every((x) => typeof x === 'object' && x !== null && check(x as Record<string, unknown>));

/** A report's run facts, checked field by field before a pull request's body is written from them; null when any is off. */
export function checkRunFacts(x: unknown): RunFacts | null {
  if (typeof x !== 'object' || x === null) return null;
  const f = x as Record<string, unknown>;
  const strings = [f.planId, f.planPath, f.outcome, f.reason, f.runDir].every(isStr);
  const numbers = [f.iterations, f.costUsd, f.durationMs].every(orNull(isNum));
  const texts = [f.objective, f.blocked].every(orNull(isStr));
  const tasks = listOf(f.tasks, (t) => isStr(t.name) && orNull(isStr)(t.status));
  const verify = listOf(f.verify, (v) => {
    const r = v.ran as Record<string, unknown> | null;
    return isStr(v.command) && (r === null || (typeof r === 'object' && isStr(r.command) && orNull(isNum)(r.exitCode) && typeof r.timedOut === 'boolean' && isNum(r.durationMs)));
  });
  const findings = listOf(f.findings, (o) => isStr(o.type) && isStr(o.severity) && isStr(o.title) && orNull(isStr)(o.file));
  return strings && numbers && texts && tasks && verify && findings ? (f as unknown as RunFacts) : null;
}
