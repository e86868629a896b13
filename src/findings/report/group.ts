// Folding findings into groups: the same finding (group-key.ts) reported by several runs or
// iterations is one entry with a count. Memory grows with distinct findings, never with the size
// of the logs. See docs/report.md.
import { ACTIONS, OBSERVATION_TYPES, SEVERITIES, type Severity } from '../../contract.js';
import { severityRank } from './filters.js';
import { groupKey } from './group-key.js';
import type { FindingGroup, FindingRecord, SeverityCount } from './types.js';

export class FindingGrouper {
  occurrences = 0;
  private readonly byKey = new Map<string, Group>();
  /** One list per run (and plan) name, shared by every group seen only there. */
  private readonly singles = new Map<string, readonly string[]>();

  add(r: FindingRecord): void {
    this.occurrences += 1;
    const key = groupKey(r.type, r.title, r.file);
    const group = this.byKey.get(key);
    if (group === undefined) this.byKey.set(key, new Group(r, this.single(r.run), r.plan === '' ? NO_NAMES : this.single(r.plan)));
    else group.fold(r);
  }

  /**
   * The groups in report order: by severity, then type and action (contract order), then most
   * seen, then first seen.
   */
  groups(): FindingGroup[] {
    // One list per severity, type and action (a few hundred at most), in first-seen order.
    const lists: Group[][] = [];
    for (const group of this.byKey.values()) {
      group.sortNames();
      (lists[group.order()] ??= []).push(group);
    }
    // sort() is stable, so equal counts stay first-seen first. A loop, not flatMap: flatMap
    // cost three times as much per finding.
    const ordered: FindingGroup[] = [];
    for (const list of lists) {
      if (list === undefined) continue;
      list.sort((a, b) => b.count - a.count);
      for (const group of list) ordered.push(group);
    }
    return ordered;
  }

  /** Distinct findings and occurrences per severity. */
  severityCounts(): Record<Severity, SeverityCount> {
    const counts = Object.fromEntries(SEVERITIES.map((s) => [s, { distinct: 0, occurrences: 0 }])) as Record<Severity, SeverityCount>;
    for (const group of this.byKey.values()) {
      counts[group.severity].distinct += 1;
      counts[group.severity].occurrences += group.count;
    }
    return counts;
  }

  private single(name: string): readonly string[] {
    let list = this.singles.get(name);
    if (list === undefined) this.singles.set(name, (list = [name]));
    return list;
  }
}

/**
 * One finding across its occurrences, as the report shows it: FindingGroup's fields (in its
 * order, which is the json format's), plus private ones (not part of the report) that folding
 * compares by. One object per group: a report of 100,000 findings keeps 100,000 of them.
 */
class Group implements FindingGroup {
  type: FindingGroup['type'];
  severity: FindingGroup['severity'];
  action: FindingGroup['action'];
  title: string;
  detail: string;
  file: string | null;
  count = 1;
  /** Sorted once all are read (sortNames). A list of one name may be shared with other groups;
   *  a longer one is the group's own. */
  runs: readonly string[];
  plans: readonly string[];
  firstAt: string;
  lastAt: string;
  /** The shown occurrence's severity rank and time, and the first and last time, as numbers:
   *  NaN until a second occurrence needs them (most findings are seen once). */
  #rank: number;
  #shownMs = NaN;
  #firstMs = NaN;
  #lastMs = NaN;

  constructor(r: FindingRecord, runs: readonly string[], plans: readonly string[]) {
    this.type = r.type;
    this.severity = r.severity;
    this.action = r.action;
    this.title = r.title;
    this.detail = r.detail;
    this.file = r.file;
    this.runs = runs;
    this.plans = plans;
    this.firstAt = r.at;
    this.lastAt = r.at;
    this.#rank = severityRank(r.severity);
  }

  fold(r: FindingRecord): void {
    if (Number.isNaN(this.#firstMs)) this.#shownMs = this.#firstMs = this.#lastMs = timeOf(this.firstAt);
    const ms = timeOf(r.at);
    const rank = severityRank(r.severity);
    this.count += 1;
    this.runs = withName(this.runs, r.run);
    if (r.plan !== '') this.plans = withName(this.plans, r.plan);
    if (ms < this.#firstMs) {
      this.#firstMs = ms;
      this.firstAt = r.at;
    }
    if (ms > this.#lastMs) {
      this.#lastMs = ms;
      this.lastAt = r.at;
    }
    // The finding is shown as its most severe occurrence, and among equals its latest.
    if (rank < this.#rank || (rank === this.#rank && ms > this.#shownMs)) {
      this.#rank = rank;
      this.#shownMs = ms;
      this.severity = r.severity;
      this.action = r.action;
      this.title = r.title;
      this.detail = r.detail;
      this.file = r.file;
    }
  }

  sortNames(): void {
    if (this.runs.length > 1) (this.runs as string[]).sort();
    if (this.plans.length > 1) (this.plans as string[]).sort();
  }

  /** Severity, type and action as one number that sorts in report order. */
  order(): number {
    return (this.#rank * OBSERVATION_TYPES.length + TYPE_ORDER.get(this.type)!) * ACTIONS.length + ACTION_ORDER.get(this.action)!;
  }
}

/** `names` with `name` added, if it is not there: a group's own list, or a new one when `names` may
 *  be shared. Searched from the end: a run's findings arrive together. */
function withName(names: readonly string[], name: string): readonly string[] {
  if (names.lastIndexOf(name) !== -1) return names;
  if (names.length <= 1) return [...names, name];
  (names as string[]).push(name);
  return names;
}

const NO_NAMES: readonly string[] = [];
const TYPE_ORDER = new Map<string, number>(OBSERVATION_TYPES.map((t, i) => [t, i]));
const ACTION_ORDER = new Map<string, number>(ACTIONS.map((a, i) => [a, i]));

/** Epoch ms of an `at` value; an unreadable one is earlier than any. */
export function timeOf(at: string): number {
  const t = Date.parse(at);
  return Number.isNaN(t) ? -Infinity : t;
}
