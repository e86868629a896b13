// The shapes the report is built from and rendered to. `Report` is also the documented JSON
// output (format json), so its fields change only with care.
import type { Action, ObservationType, Severity } from '../../contract.js';
import type { Problem } from '../../errors.js';

/** One valid observation as read from a findings.jsonl line. */
export interface FindingRecord {
  run: string;
  plan: string;
  iteration: number | null;
  at: string;
  type: ObservationType;
  severity: Severity;
  title: string;
  detail: string;
  file: string | null;
  action: Action;
}

/** An observation the agent wrote that did not parse or validate (`"valid": false`). */
export interface InvalidObservation {
  run: string;
  plan: string;
  iteration: number | null;
  at: string;
  raw: string;
  error: string;
  /** Where it was read: findings.jsonl path (relative to the runs folder) and 1-based line. */
  source: string;
}

/** A line of a findings log that is not a findings record at all. */
export interface BrokenLine {
  file: string;
  line: number;
  reason: string;
}

/** The same finding (type + normalised title + file) across every run that reported it. */
export interface FindingGroup {
  type: ObservationType;
  /** The most severe occurrence's severity and action; title and detail come from it too. */
  severity: Severity;
  action: Action;
  title: string;
  detail: string;
  file: string | null;
  /** Occurrences (records), which can exceed runs.length when one run repeated it. */
  count: number;
  /** Sorted. */
  runs: readonly string[];
  /** Sorted. */
  plans: readonly string[];
  firstAt: string;
  lastAt: string;
}

export interface RunSummary {
  /** Folder of the run, relative to the runs folder, with `/` separators. */
  dir: string;
  run: string;
  plan: string | null;
  /** null when the folder has no (readable) result.json: still running, or crashed. */
  outcome: string | null;
  exitCode: number | null;
  reason: string | null;
  iterations: number | null;
  bailouts: number | null;
  costUsd: number | null;
  /** "tasks 2/3 verified" for a plan whose tasks have checks (docs/plans.md#task-checks). */
  tasksVerified?: string | null;
  /** Receipts per iteration in result.json, and whether any cost in them is an estimate (docs/files.md#receipts). */
  receipts?: number;
  costEstimated?: boolean;
  /** The receipts themselves (at most the last 200), and each task's (docs/findings.md#json). */
  iterationReceipts?: ReportReceipt[];
  taskReceipts?: ReportTaskReceipt[];
  /** Only a strict https URL survives (util/markdown-escape.ts strictUrl); anything else is null. */
  prUrl: string | null;
  startedAt: string | null;
  endedAt: string | null;
  /** Valid findings of this run that passed the filters. */
  findings: number;
  /** What the sandbox refused in this run (docs/sandbox.md); null: not sandboxed, or no result. */
  sandbox?: RunSandboxSummary | null;
}

/** One iteration's receipt as the report shows it: its checks without their output. */
export interface ReportReceipt {
  iteration: number;
  durationMs: number | null;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** USD; an estimate from the price table when costEstimated; null: unknown. */
  costUsd: number | null;
  costEstimated: boolean;
  decision: string;
  checks: { check: string; ok: boolean }[];
  rejection: string | null;
}

/** One task's receipt: its state, the iteration it first passed in, and what it took to get there. */
export interface ReportTaskReceipt {
  name: string;
  status: string;
  regressed: boolean;
  firstPassedIteration: number | null;
  iterations: number | null;
  costUsd: number | null;
  costEstimated: boolean;
}

export interface RunSandboxSummary {
  denied: number;
  /** The first paths and hosts refused, as result.json lists them (untrusted text). */
  refusals: { what: string; target: string; count: number }[];
}

export interface ReportFilters {
  minSeverity?: Severity;
  types?: ObservationType[];
  actions?: Action[];
  plans?: string[];
  /** ISO timestamp; findings with `at` before it are left out. */
  since?: string;
}

export interface SeverityCount {
  distinct: number;
  occurrences: number;
}

export interface ReportSummary {
  runs: number;
  /** Valid findings after filters, counting every occurrence. */
  occurrences: number;
  distinct: number;
  invalid: number;
  brokenLines: number;
  bySeverity: Record<Severity, SeverityCount>;
  outcomes: Record<string, number>;
  costUsd: number;
}

export interface Report {
  version: 1;
  generatedAt: string;
  runsDir: string;
  filters: ReportFilters;
  summary: ReportSummary;
  findings: FindingGroup[];
  /** At most MAX_LISTED_INVALID entries; summary.invalid has the full count. */
  invalid: InvalidObservation[];
  /** At most MAX_LISTED_BROKEN entries; summary.brokenLines has the full count. */
  brokenLines: BrokenLine[];
  runs: RunSummary[];
  /** result.json files that could not be read, folders that could not be listed. */
  problems: Problem[];
}

export type ReportFormat = 'md' | 'html' | 'json';
export const REPORT_FORMATS: readonly ReportFormat[] = ['md', 'html', 'json'];

export const MAX_LISTED_INVALID = 1_000;
export const MAX_LISTED_BROKEN = 100;
/** Raw text kept per invalid observation; agent output is untrusted and can be huge. */
export const MAX_RAW_CHARS = 4_000;
