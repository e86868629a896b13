// "Done?" is answered by the orchestrator, not the agent (docs/signals.md#acceptance-gate): the summary file must
// exist, parse, match the schema, name this plan and be fresh; the files the checks depend on must
// be as they were; then every verify command and every task's check must pass. The reason is
// exactly what the next iteration is told.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { relative } from 'node:path';
import { checkSummary, MAX_SUMMARY_BYTES } from '../plan/index.js';
import { readRegularFileSync } from '../util/read-regular-file.js';
import { runChecks, runCommandCheck, type CheckResult, type CommandCheckOptions } from './checks.js';
import { tamperCheck, type ProtectedFiles } from './protected-files.js';
import { checkTasks, tasksVerdict, type TaskRound, type TaskState } from './task-checks.js';

export interface GateInput {
  planId: string;
  summaryPath: string;
  requireSummary: boolean;
  verify: string[];
  cwd: string;
  /** The run's original start (ms since the epoch): an older summary is stale. */
  runStartedAtMs: number;
  /** sha256 of a summary that was there before the run and stayed: that content is not this run's. */
  summaryAtStart?: string;
  /** How its commands run besides where: signal, time limit, environment, sandbox (runCheckOptions). */
  commands?: Omit<CommandCheckOptions, 'cwd'>;
  /** The tasks with their own checks: every one must pass (their states are updated). */
  tasks?: TaskState[];
  /** The iteration whose claim this is, recorded as when a task first passed. */
  iteration?: number;
  /** The files the checks depend on, as they were at the start (the tamper guard). */
  guarded?: ProtectedFiles;
}

/** One verify command as the gate ran it: what a pull request's body shows (docs/deliver.md). */
export interface VerifyRecord {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
}

export type GateResult = { complete: boolean; reason: string; checks?: CheckResult[]; verify?: VerifyRecord[] };

/** mtime resolution and clock rounding: a summary written in the run's first milliseconds is fresh. */
const FRESHNESS_SLACK_MS = 5;

export function checkSummaryFile(input: GateInput): GateResult {
  const shown = relative(input.cwd, input.summaryPath) || input.summaryPath;
  let bytes: Buffer;
  try {
    bytes = readRegularFileSync(input.summaryPath, MAX_SUMMARY_BYTES);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      return { complete: false, reason: `the summary file ${shown} does not exist: write it (JSON, see the summary format) before claiming completion` };
    }
    if (code === 'ENOTREG') return { complete: false, reason: `the summary path ${shown} is not a regular file: write the summary as a plain file there` };
    if (code === 'EFBIG') return { complete: false, reason: `the summary file ${shown} is larger than ${MAX_SUMMARY_BYTES / 1024 / 1024} MB: keep it short` };
    return { complete: false, reason: `the summary file ${shown} cannot be read: ${(error as Error).message}` };
  }
  let info;
  try {
    info = statSync(input.summaryPath);
  } catch {
    return { complete: false, reason: `the summary file ${shown} disappeared while it was read: write it again` };
  }
  if (input.summaryAtStart !== undefined && createHash('sha256').update(bytes).digest('hex') === input.summaryAtStart) {
    return { complete: false, reason: `the summary file ${shown} is the one that was there before this run started: write it again for this run` };
  }
  if (info.mtimeMs + FRESHNESS_SLACK_MS < input.runStartedAtMs) {
    return {
      complete: false,
      reason: `the summary file ${shown} is stale: it was last written at ${info.mtime.toISOString()}, before this run started at ${new Date(input.runStartedAtMs).toISOString()}; write it again for this run`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    return { complete: false, reason: `the summary file ${shown} is not valid JSON: ${(error as Error).message}` };
  }
  const checked = checkSummary(value, input.planId);
  if (!checked.ok) return { complete: false, reason: `the summary file ${shown} does not match the summary schema: ${checked.reason}` };
  return { complete: true, reason: `summary ${shown} is valid` };
}

/** The summary check, in the gate's terms. */
function summaryCheck(input: GateInput): CheckResult {
  const r = checkSummaryFile(input);
  return { check: 'summary', ok: r.complete, reason: r.reason };
}

function verifyCheck(input: GateInput, command: string): () => Promise<CheckResult> {
  return async () => {
    const r = await runCommandCheck(`verify: ${command}`, command, commandOptions(input));
    if (r.ok) return r;
    return { ...r, reason: `verify command ${r.reason}; the tail of its output:\n${r.evidence || '(no output)'}` };
  };
}

function commandOptions(input: GateInput): CommandCheckOptions {
  return { ...input.commands, cwd: input.cwd };
}

/**
 * The checks in the order they run: the summary (cheap, and what the agent must fix first), the
 * protected files (a tampered check proves nothing), the plan's verify commands, every task's check.
 */
export function gateChecks(input: GateInput, onTasks?: (round: TaskRound) => void): (() => CheckResult | Promise<CheckResult>)[] {
  const checks: (() => CheckResult | Promise<CheckResult>)[] = [];
  if (input.requireSummary) checks.push(() => summaryCheck(input));
  if (input.guarded && Object.keys(input.guarded.files).length > 0) {
    const guarded = input.guarded;
    checks.push(() => tamperCheck(input.cwd, guarded));
  }
  for (const command of input.verify) checks.push(verifyCheck(input, command));
  if (input.tasks && input.tasks.length > 0) {
    const tasks = input.tasks;
    checks.push(async () => {
      const round = await checkTasks(tasks, input.iteration ?? 0, commandOptions(input));
      onTasks?.(round);
      return tasksVerdict(tasks, round);
    });
  }
  return checks;
}

/** The verify commands as they ran, up to the first that failed (docs/deliver.md reads them from the gate event). */
function verifyRecords(checks: CheckResult[]): VerifyRecord[] {
  return checks
    .filter((c) => c.command !== undefined && c.check.startsWith('verify: '))
    .map((c) => ({ command: c.command!, exitCode: c.exitCode ?? null, timedOut: c.timedOut ?? false, durationMs: c.durationMs ?? 0 }));
}

export async function acceptanceGate(input: GateInput, onTasks?: (round: TaskRound) => void): Promise<GateResult> {
  const checks = await runChecks(gateChecks(input, onTasks));
  const verify = verifyRecords(checks);
  const ran = verify.length > 0 ? { verify } : {};
  const failed = checks.find((c) => !c.ok);
  if (failed) return { complete: false, reason: failed.reason, checks, ...ran };
  const reasons: string[] = [];
  const summary = checks.find((c) => c.check === 'summary');
  if (summary) reasons.push(summary.reason);
  if (input.verify.length > 0) reasons.push(`${input.verify.length} verify command(s) passed`);
  const tasks = checks.find((c) => c.check === 'tasks');
  if (tasks) reasons.push(tasks.reason);
  return { complete: true, reason: reasons.join('; ') || 'completion accepted', checks, ...ran };
}
