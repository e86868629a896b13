// The text of a plan's flux-drive result file (docs/batch.md#result-files-and-the-sentinel): a header and progress lines written
// while it runs, then the result section, the Findings Index, the verdict and the summary. The
// same module reads a finished file back for the index, so the format lives in one place.
import { FLUX_DRIVE_SENTINEL } from '../contract.js';
import type { RunEvent } from '../loop/events.js';
import type { IterationReceipt, RunResult, TaskReceipt } from '../loop/types.js';
import { FINDINGS_HEADING, formatFindingLine, VERDICT_PREFIX, VERDICT_WORDS, type IndexedFinding } from './findings-index.js';
import { markdownFence, strictUrl } from '../util/markdown-escape.js';
import { markdownLine, oneLine } from './one-line.js';
import { readReceiptTables, receiptSection, RECEIPTS_HEADING } from './receipt-tables.js';
import type { AttemptOutcome, PlanRow, Verdict } from './types.js';

export const RESULT_HEADING = '## Result';
export const PROGRESS_HEADING = '## Progress';
export const SUMMARY_HEADING = '### Summary';
export { RECEIPTS_HEADING };
export const LAST_GATE_HEADING = '### Last rejected claim';
export const ERROR_PREFIX = 'Error: ';

/** `- Key: value` lines of the result section, in order. */
export const RESULT_KEYS = {
  outcome: 'Outcome',
  reason: 'Reason',
  exitCode: 'Exit code',
  attempts: 'Attempts',
  iterations: 'Iterations',
  cost: 'Cost',
  tasks: 'Tasks',
  prUrl: 'PR URL',
  delivery: 'Delivery',
  branch: 'Branch',
  commit: 'Commit',
  worktree: 'Worktree',
  runDir: 'Run directory',
  previous: 'Earlier attempts',
  attemptFile: 'This attempt',
  ended: 'Ended',
} as const;

const NONE = 'none';
/** Starts the Delivery line of a plan whose delivery failed: the index lists it as a warning. */
const DELIVERY_FAILED = 'failed: ';
const UNKNOWN = 'unknown';

export interface AttemptHeader {
  plan: string;
  planPath: string;
  attempt: number;
  startedAt: string;
  /** Paths relative to the batch folder. */
  runDir: string;
  branch: string | null;
  worktree: string | null;
}

export function renderHeader(h: AttemptHeader): string {
  return [
    `# ${oneLine(h.plan)}`,
    '',
    `- Plan file: ${h.planPath}`,
    `- Attempt: ${h.attempt}`,
    `- Started: ${h.startedAt}`,
    `- Run directory: ${h.runDir}`,
    `- Branch: ${h.branch ?? NONE}`,
    `- Worktree: ${h.worktree ?? NONE}`,
    '',
    PROGRESS_HEADING,
    '',
    '',
  ].join('\n');
}

function clock(at: Date): string {
  return at.toISOString().slice(11, 19);
}

/** One progress line for the events worth a line in the result file; null for the others. */
export function progressLine(e: RunEvent, at: Date): string | null {
  const t = clock(at);
  switch (e.type) {
    case 'iteration-start':
      return `- ${t} iteration ${e.iteration} started (${e.fresh ? 'fresh context' : 'same context'}, ${e.prompt} prompt)`;
    case 'signal':
      return `- ${t} iteration ${e.iteration}: signal ${markdownLine(e.name, 40)}${e.args.length ? ` (${markdownLine(e.args.join(', '))})` : ''} from ${markdownLine(e.source, 60)}`;
    case 'gate':
      return `- ${t} iteration ${e.iteration}: claim ${e.accepted ? 'accepted' : 'rejected'}: ${markdownLine(e.reason)}`;
    case 'tasks':
      return `- ${t} iteration ${e.iteration}: ${e.verified}${e.regressed.length ? `; regressed: ${markdownLine(e.regressed.join(', '))}` : ''}`;
    case 'silence':
      return `- ${t} iteration ${e.iteration}: silent for ${Math.round(e.silentMs / 1000)}s`;
    case 'iteration-end':
      return `- ${t} iteration ${e.iteration} ended (exit ${e.exitCode ?? 'none'}, decision ${markdownLine(String(e.decision), 40)}, ${(e.durationMs / 1000).toFixed(1)}s)`;
    case 'warning':
      return `- ${t} warning: ${markdownLine(e.message)}`;
    case 'run-end':
      return `- ${t} run ended ${e.outcome}: ${markdownLine(e.reason)}`;
    case 'near_miss':
      return `- ${t} iteration ${e.iteration}: not a signal at line ${e.line}: ${markdownLine(e.text, 120)}`;
    case 'wait_start':
      return `- ${t} iteration ${e.iteration}: waiting for the ${e.kind} limit until ${e.until}`;
    case 'wait_end':
      return `- ${t} iteration ${e.iteration}: wait ended (${e.end}) after ${Math.round(e.waitedMs / 1000)}s`;
    case 'stop':
      return `- ${t} iteration ${e.iteration}: agent stopped (${e.cause}): ${markdownLine(e.detail)}`;
    case 'agent':
      return `- ${t} agent: ${markdownLine(e.command.join(' '))} (stream format ${e.streamFormat})`;
    case 'transcript-cut':
      return `- ${t} iteration ${e.iteration}: log cut at --max-log, ${e.droppedBytes} of ${e.totalBytes} bytes dropped`;
    case 'processes-stopped':
      return `- ${t} iteration ${e.iteration}: stopped ${e.processes.length} process(es) the agent left running`;
    case 'sandbox_denied':
      return `- ${t} iteration ${e.iteration}: sandbox refused a ${e.what} (${markdownLine(e.target, 120)}) by the ${e.by === 'verify' ? 'verify commands' : 'agent'}${e.count > 1 ? `, ${e.count} times` : ''}`;
    case 'sandbox':
    case 'run-start':
    case 'output':
    case 'malformed':
    case 'ignored':
    case 'observation':
    case 'tool':
    case 'usage':
    case 'decision':
    case 'limit':
      return null;
    default: {
      const never: never = e;
      return never;
    }
  }
}

export function formatCost(costUsd: number | null): string {
  return costUsd === null ? UNKNOWN : `$${costUsd.toFixed(4)}`;
}

export interface ResultFacts {
  outcome: AttemptOutcome;
  reason: string;
  exitCode: number | null;
  attempts: number;
  iterations: number | null;
  costUsd: number | null;
  prUrl: string | null;
  /** With --pr: what delivery did, and whether it failed (docs/deliver.md). */
  delivery?: { note: string; failed: boolean };
  branch: string | null;
  /** What the branch points at when the plan ended (docs/first-hour.md). */
  commit: string | null;
  worktree: string | null;
  runDir: string;
  previous: string[];
  /** Error stubs: where this (last) attempt's own result file was set aside. */
  attemptFile?: string;
  /** Why the last rejected claim was rejected (a verify command and its output's tail, say). */
  lastRejection?: string;
  endedAt: string;
  /** "tasks 2/3 verified" (docs/plans.md#task-checks); absent for a plan without task checks. */
  tasksVerified?: string;
  /** One per iteration (docs/files.md#receipts). */
  receipts?: IterationReceipt[];
  /** Each task's receipt, for a plan whose tasks have checks. */
  tasks?: TaskReceipt[];
}

/** The task states and receipts of a run's result.json, as ResultFacts carries them. */
export function receiptFacts(result: Pick<RunResult, 'tasksVerified' | 'receipts' | 'tasks'> | null | undefined): Pick<ResultFacts, 'tasksVerified' | 'receipts' | 'tasks'> {
  return {
    ...(result?.tasksVerified !== undefined ? { tasksVerified: result.tasksVerified } : {}),
    ...(result?.receipts ? { receipts: result.receipts } : {}),
    ...(result?.tasks ? { tasks: result.tasks } : {}),
  };
}

/** A strict URL as it is (GitHub links it); anything else as inert text, cut to 300 characters. */
function prUrlText(prUrl: string | null): string {
  if (!prUrl) return NONE;
  return strictUrl(prUrl)?.href ?? markdownLine(prUrl.slice(0, 1_000), 300);
}

function deliveryLine(d: { note: string; failed: boolean }): string {
  return `- ${RESULT_KEYS.delivery}: ${d.failed ? DELIVERY_FAILED : ''}${markdownLine(d.note, 1_000)}`;
}

/**
 * A finished result text written elsewhere (a queue worker's, docs/queue.md) with what delivery
 * did afterwards: its `PR URL:` line set and the `Delivery:` line after it, as renderResult puts them.
 */
export function withDelivery(text: string, prUrl: string | null, delivery: { note: string; failed: boolean }): string {
  const lines = text.split('\n');
  const start = lines.lastIndexOf(RESULT_HEADING);
  const key = `- ${RESULT_KEYS.prUrl}: `;
  let at = start < 0 ? -1 : start + 1;
  while (at > 0 && at < lines.length && !lines[at]!.startsWith('#') && !lines[at]!.startsWith(key)) at++;
  if (at < 0 || at >= lines.length || !lines[at]!.startsWith(key)) return text;
  lines.splice(at, 1, ...(prUrl ? [`${key}${prUrlText(prUrl)}`] : [lines[at]!]), deliveryLine(delivery));
  return lines.join('\n');
}

function resultLines(f: ResultFacts): string[] {
  const k = RESULT_KEYS;
  const lines = [
    RESULT_HEADING,
    '',
    `- ${k.outcome}: ${f.outcome}`,
    `- ${k.reason}: ${markdownLine(f.reason, 500) || NONE}`,
    `- ${k.exitCode}: ${f.exitCode ?? UNKNOWN}`,
    `- ${k.attempts}: ${f.attempts}`,
    `- ${k.iterations}: ${f.iterations ?? UNKNOWN}`,
    `- ${k.cost}: ${formatCost(f.costUsd)}${f.receipts?.some((r) => r.costEstimated) ? ' (partly estimated)' : ''}`,
    ...(f.tasksVerified ? [`- ${k.tasks}: ${f.tasksVerified}`] : []),
    `- ${k.prUrl}: ${prUrlText(f.prUrl)}`,
    ...(f.delivery ? [deliveryLine(f.delivery)] : []),
    `- ${k.branch}: ${f.branch ?? NONE}`,
    `- ${k.commit}: ${f.commit ?? NONE}`,
    `- ${k.worktree}: ${f.worktree ?? NONE}`,
    `- ${k.runDir}: ${f.runDir}`,
  ];
  if (f.previous.length) lines.push(`- ${k.previous}: ${f.previous.join(', ')}`);
  if (f.attemptFile !== undefined) lines.push(`- ${k.attemptFile}: ${f.attemptFile}`);
  lines.push(`- ${k.ended}: ${f.endedAt}`, '');
  return lines;
}

/** What is appended to the partial file when the attempt ends, sentinel included. */
/** After the verdict (the index reads up to it): what the verdict words mean, and the last rejection. */
function afterVerdict(f: ResultFacts): string[] {
  const lines = [`(${VERDICT_WORDS})`, ''];
  if (f.lastRejection !== undefined) lines.push(LAST_GATE_HEADING, '', markdownFence(f.lastRejection), '');
  return lines;
}

export function renderResult(f: ResultFacts, findings: IndexedFinding[], verdict: Verdict, summary: unknown): string {
  const lines = ['', ...resultLines(f), FINDINGS_HEADING, ...findings.map(formatFindingLine), `${VERDICT_PREFIX}${verdict}`, ...afterVerdict(f), ...receiptSection(f.receipts ?? [], f.tasks ?? [])];
  if (summary !== undefined) {
    lines.push(SUMMARY_HEADING, '', markdownFence(JSON.stringify(summary, null, 2), 'json'), '');
  }
  lines.push(FLUX_DRIVE_SENTINEL, '');
  return lines.join('\n');
}

/** The whole error stub written after a plan failed twice. */
export function renderErrorStub(plan: string, f: ResultFacts): string {
  return [
    `# ${oneLine(plan)}: error`,
    '',
    ...resultLines(f),
    FINDINGS_HEADING,
    `${VERDICT_PREFIX}error`,
    `${ERROR_PREFIX}${f.outcome}: ${markdownLine(f.reason, 500) || NONE}`,
    '',
    ...afterVerdict(f),
    FLUX_DRIVE_SENTINEL,
    '',
  ].join('\n');
}

export function endsWithSentinel(text: string): boolean {
  const trimmed = text.trimEnd();
  return trimmed.endsWith(`\n${FLUX_DRIVE_SENTINEL}`) || trimmed === FLUX_DRIVE_SENTINEL;
}

const OUTCOME_WORDS = new Set<string>(['complete', 'failed', 'blocked', 'exhausted', 'off_rails', 'interrupted', 'crashed', 'timed_out', 'invalid']);
const VERDICTS = new Set<string>(['safe', 'needs-changes', 'risky', 'error']);

function numberOr(text: string | undefined): number | null {
  if (text === undefined) return null;
  const n = Number(text.replace(/^\$/, ''));
  return text.trim() !== '' && Number.isFinite(n) ? n : null;
}

function orNull(text: string | undefined): string | null {
  return text === undefined || text === NONE ? null : text;
}

/** Reads a finished result file back into an index row (fields it cannot find stay null). */
export function parseResultFile(plan: string, resultFile: string, text: string): PlanRow {
  const lines = text.split(/\r?\n/);
  const warnings: string[] = [];
  if (!endsWithSentinel(text)) warnings.push(`${resultFile} does not end with the completion sentinel; accepted as it is`);
  const start = lines.lastIndexOf(RESULT_HEADING);
  const values = new Map<string, string>();
  let verdict: Verdict | null = null;
  if (start >= 0) {
    let i = start + 1;
    for (; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.startsWith('#')) break;
      const m = /^- ([^:]+): (.*)$/.exec(line);
      if (m) values.set(m[1]!, m[2]!);
    }
    if (lines[i] === FINDINGS_HEADING) {
      for (; i < lines.length; i++) {
        const line = lines[i]!;
        if (line.startsWith(VERDICT_PREFIX)) {
          const v = line.slice(VERDICT_PREFIX.length).trim();
          verdict = VERDICTS.has(v) ? (v as Verdict) : null;
          break;
        }
      }
    }
  }
  if (start < 0 || verdict === null) warnings.push(`${resultFile} has no result section or verdict`);
  const k = RESULT_KEYS;
  const receipts = readReceiptTables(lines);
  const outcomeText = values.get(k.outcome);
  const delivery = values.get(k.delivery);
  if (delivery?.startsWith(DELIVERY_FAILED)) warnings.push(`delivery ${delivery}`);
  return {
    plan,
    outcome: outcomeText && OUTCOME_WORDS.has(outcomeText) ? (outcomeText as AttemptOutcome) : null,
    exitCode: numberOr(values.get(k.exitCode)),
    attempts: numberOr(values.get(k.attempts)) ?? 1,
    iterations: numberOr(values.get(k.iterations)),
    costUsd: numberOr(values.get(k.cost)?.split(' ')[0]),
    ...(values.get(k.tasks) !== undefined ? { tasksVerified: values.get(k.tasks)! } : {}),
    ...(receipts.length > 0 ? { receipts } : {}),
    verdict,
    prUrl: orNull(values.get(k.prUrl)),
    ...(delivery !== undefined ? { delivery } : {}),
    branch: orNull(values.get(k.branch)),
    commit: orNull(values.get(k.commit)),
    worktree: orNull(values.get(k.worktree)),
    resultFile,
    warnings,
  };
}
