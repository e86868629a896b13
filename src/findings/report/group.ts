// Folding findings into groups: the same finding reported by several runs (or iterations) is one
// entry with a count. Memory grows with distinct findings, never with the size of the logs.
import { ACTIONS, OBSERVATION_TYPES, type ObservationType } from '../../contract.js';
import { severityRank } from './filters.js';
import type { FindingGroup, FindingRecord } from './types.js';

const PUNCTUATION = /[\p{P}\p{S}]+/gu;
const SPACES = /\s+/g;

/** Case, whitespace and punctuation do not make a different finding. */
const NON_ASCII = /[^\x00-\x7f]/;
const NON_ALNUM_ASCII = /[^a-z0-9]+/g;

export function normaliseTitle(title: string): string {
  // In ASCII, punctuation, symbols and spaces are exactly the non-alphanumerics: one cheap pass.
  if (!NON_ASCII.test(title)) return title.toLowerCase().replace(NON_ALNUM_ASCII, ' ').trim();
  return title.normalize('NFKC').toLowerCase().replace(PUNCTUATION, ' ').replace(SPACES, ' ').trim();
}

export function normaliseFile(file: string | null): string {
  if (file === null) return '';
  let f = file.trim().replace(/\\/g, '/');
  while (f.startsWith('./')) f = f.slice(2);
  return f;
}

export function groupKey(type: ObservationType, title: string, file: string | null): string {
  return `${type}\u0000${normaliseTitle(title)}\u0000${normaliseFile(file)}`;
}

interface Acc {
  group: FindingGroup;
  /** The rest of the identity besides the normalised title. */
  type: ObservationType;
  file: string;
  /** `at` of the representative occurrence. */
  repAt: string;
  /** Severity, type and action as one number, for a cheap sort. */
  order: number;
  /** First-seen position: the last tiebreak, deterministic because runs are read in path order. */
  index: number;
}

export class FindingGrouper {
  // Keyed by normalised title alone (a flat string, cheap to hash), each entry holding the few
  // groups that share it; type and file tell them apart.
  private readonly byTitle = new Map<string, Acc | Acc[] | Map<string, Acc>>();
  private readonly all: Acc[] = [];
  occurrences = 0;

  add(r: FindingRecord): void {
    this.occurrences += 1;
    const title = normaliseTitle(r.title);
    const file = normaliseFile(r.file);
    const slot = this.byTitle.get(title);
    let acc: Acc | undefined;
    if (slot !== undefined) {
      if (slot instanceof Map) acc = slot.get(subKey(r.type, file));
      else if (Array.isArray(slot)) acc = slot.find((a) => a.type === r.type && a.file === file);
      else if (slot.type === r.type && slot.file === file) acc = slot;
    }
    if (acc === undefined) {
      const created: Acc = {
        group: {
          type: r.type,
          severity: r.severity,
          action: r.action,
          title: r.title,
          detail: r.detail,
          file: r.file,
          count: 1,
          runs: [r.run],
          plans: r.plan === '' ? [] : [r.plan],
          firstAt: r.at,
          lastAt: r.at,
        },
        type: r.type,
        file,
        repAt: r.at,
        order: orderOf(r),
        index: this.all.length,
      };
      this.all.push(created);
      if (slot === undefined) this.byTitle.set(title, created);
      else if (slot instanceof Map) slot.set(subKey(created.type, file), created);
      else if (!Array.isArray(slot)) this.byTitle.set(title, [slot, created]);
      else if (slot.length < MAX_SCAN) slot.push(created);
      // One title in many files ("TODO"): stop scanning a list, index it.
      else this.byTitle.set(title, new Map([...slot, created].map((a) => [subKey(a.type, a.file), a])));
      return;
    }
    const g = acc.group;
    g.count += 1;
    // Plain arrays, searched from the end: a run's records arrive together, and a finding is
    // seen in few runs; a Set per group costs more memory and garbage than it saves.
    addUnique(g.runs, r.run);
    if (r.plan !== '') addUnique(g.plans, r.plan);
    if (compareTimes(r.at, g.firstAt) < 0) g.firstAt = r.at;
    if (compareTimes(r.at, g.lastAt) > 0) g.lastAt = r.at;
    // The representative is the most severe occurrence, and among equals the latest one.
    const rank = severityRank(r.severity);
    const repRank = severityRank(g.severity);
    if (rank < repRank || (rank === repRank && compareTimes(r.at, acc.repAt) > 0)) {
      g.severity = r.severity;
      g.action = r.action;
      g.title = r.title;
      g.detail = r.detail;
      g.file = r.file;
      acc.repAt = r.at;
      acc.order = orderOf(r);
    }
  }

  /** Sorted by severity, then type and action (contract order), then most seen, then first seen. */
  groups(): FindingGroup[] {
    const accs = [...this.all];
    accs.sort((a, b) => a.order - b.order || b.group.count - a.group.count || a.index - b.index);
    return accs.map((acc) => {
      acc.group.runs.sort();
      acc.group.plans.sort();
      return acc.group;
    });
  }
}

const MAX_SCAN = 16;

function subKey(type: string, file: string): string {
  return `${type}\u0000${file}`;
}

function addUnique(list: string[], value: string): void {
  for (let i = list.length - 1; i >= 0; i--) if (list[i] === value) return;
  list.push(value);
}

function orderOf(g: Pick<FindingGroup, 'severity' | 'type' | 'action'>): number {
  return severityRank(g.severity) * 10_000 + TYPE_ORDER.get(g.type)! * 100 + ACTION_ORDER.get(g.action)!;
}


const TYPE_ORDER = new Map<string, number>(OBSERVATION_TYPES.map((t, i) => [t, i]));
const ACTION_ORDER = new Map<string, number>(ACTIONS.map((a, i) => [a, i]));



const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Orders two `at` values; unreadable ones sort first. Canonical ISO strings (what ralph writes)
 *  compare as text, which saves a Date.parse per record. */
export function compareTimes(a: string, b: string): number {
  if (a.length === 24 && b.length === 24 && CANONICAL_ISO.test(a) && CANONICAL_ISO.test(b)) return a < b ? -1 : a > b ? 1 : 0;
  const ta = timeOf(a);
  const tb = timeOf(b);
  return ta < tb ? -1 : ta > tb ? 1 : 0;
}

function timeOf(at: string): number {
  const t = Date.parse(at);
  return Number.isNaN(t) ? -Infinity : t;
}
