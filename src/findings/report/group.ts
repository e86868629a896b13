// Folding findings into groups: the same finding reported by several runs (or iterations) is one
// entry with a count. Memory grows with distinct findings, never with the size of the logs.
//
// This is the hot path of `ralph report` (100,000 records in well under a second), and what costs
// there is garbage collection of what survives, not arithmetic. So a group is one object and its
// text, nothing else: the lookup is an open-addressing table of integers over a hash of the
// normalised identity (no key string is built or kept per record), the bookkeeping lives in typed
// arrays, and a group seen in one run shares one `runs` array with every other such group.
import { ACTIONS, OBSERVATION_TYPES, SEVERITIES, type Action, type ObservationType, type Severity } from '../../contract.js';
import { severityRank } from './filters.js';
import { timeOf } from './time-of.js';
import { PLAIN_TEXT, type FindingGroup, type FindingRecord, type SeverityCount } from './types.js';

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
  let f = file.trim();
  if (f.includes('\\')) f = f.replace(/\\/g, '/');
  while (f.startsWith('./')) f = f.slice(2);
  return f;
}

/** The identity of a group as text: what two records must share to be the same finding. */
export function groupKey(type: ObservationType, title: string, file: string | null): string {
  return `${type}\u0000${normaliseTitle(title)}\u0000${normaliseFile(file)}`;
}

// 32-bit FNV-1a over the characters of the normalised identity.
const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;

/**
 * Hash of normaliseTitle(title) without building it: for ASCII the normalisation is "lower-case,
 * each run of non-alphanumerics one space, trimmed", which a single pass can hash as it goes.
 * Other titles take the general path; both hash the same characters, so they agree.
 */
function hashTitle(title: string, seed: number): number {
  let h = seed;
  let started = false;
  let gap = false;
  for (let i = 0; i < title.length; i++) {
    let c = title.charCodeAt(i);
    if (c >= 128) return hashText(normaliseTitle(title), seed);
    if (c >= 65 && c <= 90) c += 32;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (gap && started) h = Math.imul(h ^ 32, FNV_PRIME);
      h = Math.imul(h ^ c, FNV_PRIME);
      started = true;
      gap = false;
    } else {
      gap = true;
    }
  }
  return h;
}

function hashText(text: string, seed: number): number {
  let h = seed;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}

function sameTitle(a: string, b: string): boolean {
  return a === b || normaliseTitle(a) === normaliseTitle(b);
}

const TYPE_ORDER = new Map<string, number>(OBSERVATION_TYPES.map((t, i) => [t, i]));
const ACTION_ORDER = new Map<string, number>(ACTIONS.map((a, i) => [a, i]));
/** Severity, then type, then action (contract order) as one small number is below this. */
const PER_SEVERITY = OBSERVATION_TYPES.length * ACTIONS.length;
const ORDER_LIMIT = SEVERITIES.length * PER_SEVERITY;

function orderOf(severity: Severity, typeId: number, action: Action): number {
  return severityRank(severity) * PER_SEVERITY + typeId * ACTIONS.length + ACTION_ORDER.get(action)!;
}

// Shared, never mutated (FindingGroup.runs is readonly); not frozen, because JSON.stringify takes
// a slow path for frozen arrays.
const EMPTY: readonly string[] = [];
const INITIAL_GROUPS = 1024;

export class FindingGrouper {
  occurrences = 0;
  private readonly list: FindingGroup[] = [];
  private counts: Record<Severity, SeverityCount> | null = null;
  // Per group, by index: what the lookup and the merge need, in typed arrays the collector never
  // has to trace. Times are epoch ms (-Infinity when unreadable), so merging compares numbers;
  // they are read at a group's second occurrence, as most findings are seen once.
  private hashes = new Int32Array(INITIAL_GROUPS);
  private typeIds = new Uint8Array(INITIAL_GROUPS);
  private firstMs = new Float64Array(INITIAL_GROUPS);
  private lastMs = new Float64Array(INITIAL_GROUPS);
  /** Time of the representative occurrence. */
  private repMs = new Float64Array(INITIAL_GROUPS);
  /** Occurrences (FindingGroup.count), and the sort key of the representative's severity, type
   *  and action: groups() reads these, not the 100,000 objects scattered in the heap. */
  private seen = new Int32Array(INITIAL_GROUPS);
  private orders = new Uint16Array(INITIAL_GROUPS);
  /** Open addressing: group index + 1, 0 for an empty slot; kept at most half full. */
  private slots = new Int32Array(INITIAL_GROUPS * 2);
  /** One single-element array per run / plan name, shared by the groups that have only it. */
  private readonly single = new Map<string, readonly string[]>();
  private readonly files = new Map<string, string>();
  private lastRun = '';
  private lastRunList: readonly string[] = EMPTY;
  private lastPlan = '';
  private lastPlanList: readonly string[] = EMPTY;

  add(r: FindingRecord): void {
    this.occurrences += 1;
    this.counts = null;
    const file = normaliseFile(r.file);
    const typeId = TYPE_ORDER.get(r.type)!;
    const hash = hashText(file, hashTitle(r.title, Math.imul(FNV_OFFSET ^ typeId, FNV_PRIME)) ^ 0xff);
    const mask = this.slots.length - 1;
    let slot = hash & mask;
    for (;;) {
      const entry = this.slots[slot]!;
      if (entry === 0) break;
      const i = entry - 1;
      if (this.hashes[i] === hash && this.typeIds[i] === typeId) {
        const g = this.list[i]!;
        if (normaliseFile(g.file) === file && sameTitle(g.title, r.title)) {
          this.merge(i, g, r);
          return;
        }
      }
      slot = (slot + 1) & mask;
    }
    this.create(r, typeId, hash, slot);
  }

  private create(r: FindingRecord, typeId: number, hash: number, slot: number): void {
    const i = this.list.length;
    if (i === this.hashes.length) this.growArrays();
    const g: FindingGroup = {
      type: r.type,
      severity: r.severity,
      action: r.action,
      title: r.title,
      detail: r.detail,
      file: r.file === null ? null : this.fileName(r.file),
      count: 1,
      runs: this.runList(r.run),
      plans: this.planList(r.plan),
      firstAt: r.at,
      lastAt: r.at,
      [PLAIN_TEXT]: r.plain,
    };
    this.list.push(g);
    this.hashes[i] = hash;
    this.typeIds[i] = typeId;
    this.seen[i] = 1;
    this.orders[i] = orderOf(r.severity, typeId, r.action);
    this.slots[slot] = i + 1;
    if ((i + 1) * 2 > this.slots.length) this.rehash();
  }

  private merge(i: number, g: FindingGroup, r: FindingRecord): void {
    if (this.seen[i] === 1) {
      // Seen once so far: its one time is first, last and the representative's.
      const once = timeOf(g.firstAt);
      this.firstMs[i] = once;
      this.lastMs[i] = once;
      this.repMs[i] = once;
    }
    g.count += 1;
    this.seen[i] = this.seen[i]! + 1;
    if (r.plain !== 'script' && g[PLAIN_TEXT] !== undefined) g[PLAIN_TEXT] = r.plain;
    g.runs = withName(g.runs, this.runList(r.run));
    if (r.plan !== '') g.plans = withName(g.plans, this.planList(r.plan));
    const ms = timeOf(r.at);
    if (ms < this.firstMs[i]!) {
      this.firstMs[i] = ms;
      g.firstAt = r.at;
    }
    if (ms > this.lastMs[i]!) {
      this.lastMs[i] = ms;
      g.lastAt = r.at;
    }
    // The representative is the most severe occurrence, and among equals the latest one.
    const rank = severityRank(r.severity);
    const repRank = severityRank(g.severity);
    if (rank < repRank || (rank === repRank && ms > this.repMs[i]!)) {
      g.severity = r.severity;
      g.action = r.action;
      g.title = r.title;
      g.detail = r.detail;
      g.file = r.file === null ? null : this.fileName(r.file);
      this.repMs[i] = ms;
      this.orders[i] = orderOf(r.severity, this.typeIds[i]!, r.action);
    }
  }

  // A run's records arrive together, so the last name asked for is nearly always the next one.
  private runList(run: string): readonly string[] {
    if (run !== this.lastRun || this.lastRunList === EMPTY) {
      this.lastRun = run;
      this.lastRunList = this.shared(run);
    }
    return this.lastRunList;
  }

  private planList(plan: string): readonly string[] {
    if (plan === '') return EMPTY;
    if (plan !== this.lastPlan || this.lastPlanList === EMPTY) {
      this.lastPlan = plan;
      this.lastPlanList = this.shared(plan);
    }
    return this.lastPlanList;
  }

  /** One string per file name: many findings name the same few files, and every group's text
   *  stays in memory (and is copied by the young-generation collector) while the rest is read. */
  private fileName(file: string): string {
    let known = this.files.get(file);
    if (known === undefined) {
      known = file;
      this.files.set(file, file);
    }
    return known;
  }

  private shared(name: string): readonly string[] {
    let list = this.single.get(name);
    if (list === undefined) {
      list = [name];
      this.single.set(name, list);
    }
    return list;
  }

  private growArrays(): void {
    const n = this.hashes.length * 2;
    const grow = <T extends Int32Array | Uint8Array | Uint16Array | Float64Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.hashes = grow(this.hashes, new Int32Array(n));
    this.typeIds = grow(this.typeIds, new Uint8Array(n));
    this.firstMs = grow(this.firstMs, new Float64Array(n));
    this.lastMs = grow(this.lastMs, new Float64Array(n));
    this.repMs = grow(this.repMs, new Float64Array(n));
    this.seen = grow(this.seen, new Int32Array(n));
    this.orders = grow(this.orders, new Uint16Array(n));
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let i = 0; i < this.list.length; i++) {
      let slot = this.hashes[i]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = i + 1;
    }
    this.slots = slots;
  }

  /** Sorted by severity, then type and action (contract order), then most seen, then first seen. */
  groups(): FindingGroup[] {
    const list = this.list;
    const n = list.length;
    // A counting sort on the (few) severity/type/action combinations keeps first-seen order
    // within each; then only buckets holding a group seen more than once need a (stable) sort by
    // count. The pass reads typed arrays, and touches a group object only when it was seen more
    // than once (a group seen once has one run and one plan: nothing to sort).
    const orders = this.orders;
    const seen = this.seen;
    const buckets = new Int32Array(ORDER_LIMIT + 1);
    const repeated = new Uint8Array(ORDER_LIMIT);
    const counts = SEVERITIES.map(() => ({ distinct: 0, occurrences: 0 }));
    for (let i = 0; i < n; i++) {
      const o = orders[i]!;
      const count = seen[i]!;
      const rank = (o / PER_SEVERITY) | 0;
      buckets[o + 1]! += 1;
      counts[rank]!.distinct += 1;
      counts[rank]!.occurrences += count;
      if (count > 1) {
        repeated[o] = 1;
        const g = list[i]!;
        // Only lists of two or more names are the group's own; one name needs no sorting anyway.
        if (g.runs.length > 1) (g.runs as string[]).sort();
        if (g.plans.length > 1) (g.plans as string[]).sort();
      }
    }
    this.counts = Object.fromEntries(SEVERITIES.map((sev, r) => [sev, counts[r]!])) as Record<Severity, SeverityCount>;
    for (let o = 0; o < ORDER_LIMIT; o++) buckets[o + 1]! += buckets[o]!;
    const starts = buckets.slice();
    const sorted = new Array<FindingGroup>(n);
    for (let i = 0; i < n; i++) sorted[buckets[orders[i]!]!++] = list[i]!;
    // Most findings are seen once: only those seen more often are sorted (stably, by count), and
    // go before the rest, which keep their first-seen order.
    for (let o = 0; o < ORDER_LIMIT; o++) {
      if (repeated[o] === 0) continue;
      const from = starts[o]!;
      const to = starts[o + 1]!;
      const seenMore: FindingGroup[] = [];
      let once = to;
      for (let k = to - 1; k >= from; k--) {
        const g = sorted[k]!;
        if (g.count > 1) seenMore.push(g);
        else sorted[--once] = g;
      }
      seenMore.reverse().sort((a, b) => b.count - a.count);
      for (let k = 0; k < seenMore.length; k++) sorted[from + k] = seenMore[k]!;
    }
    return sorted;
  }

  /** Distinct findings and occurrences per severity, as of the last groups() call. */
  severityCounts(): Record<Severity, SeverityCount> {
    return this.counts ?? (this.groups(), this.counts!);
  }
}

/**
 * `names` plus the name in `single` (kept unique). A one-element list is a shared one, so a second
 * name makes a fresh array; after that the group's own array grows. Searched from the end: a run's
 * records arrive together, and a finding is seen in few runs.
 */
function withName(names: readonly string[], single: readonly string[]): readonly string[] {
  if (names.length === 0 || names === single) return single;
  // Every name in a list is the canonical string from `single`, so these compare by identity.
  const name = single[0]!;
  for (let i = names.length - 1; i >= 0; i--) if (names[i] === name) return names;
  if (names.length === 1) return [names[0]!, name];
  (names as string[]).push(name);
  return names;
}
