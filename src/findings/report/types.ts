// The shapes the report is built from and rendered to. `Report` is also the documented JSON
// output (format json), so its fields change only with care.
import type { Action, ObservationType, Severity } from '../../contract.js';
import type { Problem } from '../../errors.js';
import type { ByteOutput } from './byte-output.js';

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
  /** Its strings need no escaping (read from a line whose strings had none, see record-scan.ts),
   *  so they can be written out as they are. */
  plain?: PlainText;
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

/**
 * Text known to need no escaping: 'json' in JSON (no quote, backslash, control character or
 * lone surrogate); 'script' in JSON inside an html script block as well (nor '<', '>', '&',
 * U+2028, U+2029).
 */
export type PlainText = 'json' | 'script';

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
  /** Sorted. Read-only: groups seen in the same single run share one array. */
  runs: readonly string[];
  /** Sorted; shared like `runs`. */
  plans: readonly string[];
  firstAt: string;
  lastAt: string;
}

/**
 * A report's findings in report order, made into FindingGroup objects only as they are asked
 * for: buildReport keeps the findings' text as bytes (text-arena.ts), and the formats render
 * them a slice at a time, so 100,000 of them never exist as objects at once.
 */
export interface FindingSource {
  readonly length: number;
  /** A new object each call. */
  get(index: number): FindingGroup;
  slice(from: number, to: number): FindingGroup[];
  count(index: number): number;
  severity(index: number): Severity;
  /** Only buildReport's sources: the findings' fields without making objects of them. */
  readonly fields?: FindingFields;
}

/** A finding's text fields, by where FindingFields.text() finds them. */
export const TEXT_FIELD = { title: 0, detail: 2, file: 4, firstAt: 6, lastAt: 8 } as const;
export type TextField = (typeof TEXT_FIELD)[keyof typeof TEXT_FIELD];

/** The fields of FindingSource's findings, by index, for the formats to write them as bytes. */
export interface FindingFields {
  /** A small number for its severity, type and action together (below 256): the same for two
   *  findings exactly when all three are. */
  kind(index: number): number;
  /** How plain its text is (FindingRecord.plain): only plain text may be written as it is. */
  plain(index: number): PlainText | undefined;
  type(index: number): ObservationType;
  action(index: number): Action;
  runs(index: number): readonly string[];
  plans(index: number): readonly string[];
  hasFile(index: number): boolean;
  /** Where text() can write: the memory the text is in, above it. */
  output(): ByteOutput;
  /** Appends the text as UTF-8 bytes (nothing for a null file) to an output() of these fields. */
  text(index: number, field: TextField, out: ByteOutput): void;
}

/** Where buildReport's reports keep their FindingSource (finding-source.ts reads it). */
export const FINDING_SOURCE: unique symbol = Symbol('finding source');

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
  /** Only https URLs survive; anything else is dropped. */
  prUrl: string | null;
  startedAt: string | null;
  endedAt: string | null;
  /** Valid findings of this run that passed the filters. */
  findings: number;
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
