// Folding findings into groups: the same finding (group-key.ts) reported by several runs (or
// iterations) is one entry with a count. Memory grows with distinct findings, never with the size
// of the logs.
//
// This is the hot path of `ralph report` (100,000 records in well under a second), and what costs
// there is garbage collection of what survives, not arithmetic. So no group is an object: the
// lookup is an open-addressing table of integers over a hash of the normalised identity (no key
// string is built or kept per record), the bookkeeping lives in typed arrays, the text in a
// TextArena, and a group seen in one run shares one `runs` array with every other such group.
import { ACTIONS, OBSERVATION_TYPES, SEVERITIES, type Severity } from '../../contract.js';
import { severityRank } from './filters.js';
import { FNV_OFFSET, FNV_PRIME, hashFileBytes, hashText, hashTitle, hashTitleBytes, normaliseFile, NOT_PLAIN, sameTitle } from './group-key.js';
import { FIELD, type ScannedLine } from './record-scan.js';
import { timeOf, timeOfBytes } from './time-of.js';
import { ByteOutput } from './byte-output.js';
import { bufferMemory, type ReportMemory } from './report-memory.js';
import { TextArena } from './text-arena.js';
import { TEXT_FIELD, type FindingGroup, type FindingRecord, type FindingSource, type PlainText, type SeverityCount } from './types.js';

const TYPE_ORDER = new Map<string, number>(OBSERVATION_TYPES.map((t, i) => [t, i]));
const ACTION_ORDER = new Map<string, number>(ACTIONS.map((a, i) => [a, i]));
/** Severity, then type, then action (contract order) as one small number is below this. */
const PER_SEVERITY = OBSERVATION_TYPES.length * ACTIONS.length;
const ORDER_LIMIT = SEVERITIES.length * PER_SEVERITY;

function orderOf(rank: number, typeId: number, actionId: number): number {
  return rank * PER_SEVERITY + typeId * ACTIONS.length + actionId;
}

// Shared, never mutated (FindingGroup.runs is readonly); not frozen, because JSON.stringify takes
// a slow path for frozen arrays.
const EMPTY: readonly string[] = [];
const INITIAL_GROUPS = 1024;
/** reserve() goes no further than this at once (about 40 MB of arrays). */
const MAX_RESERVED_GROUPS = 1 << 19;

// A group's text: five spans in the arena, two numbers each (address, length in bytes; a null
// file has length -1; addresses can pass 2^31). First and last time start as one span, shared.
const { title: TITLE, detail: DETAIL, file: FILE, firstAt: FIRST_AT, lastAt: LAST_AT } = TEXT_FIELD;
const SPAN_INTS = 10;
/** What fold() found changed: the first or last time, or the representative occurrence. */
const FIRST = 1;
const LAST = 2;
const REPRESENTATIVE = 4;
/** Arena bytes no span points to any more, past which the arena is rewritten. */
const COMPACT_AT_BYTES = 1 << 20;

/** Whether the group's first and last time are one span (an empty span can sit where the next
 *  one starts: the length tells them apart). */
function sharedTimes(spans: Float64Array, k: number): boolean {
  return spans[k + FIRST_AT] === spans[k + LAST_AT] && spans[k + FIRST_AT + 1] === spans[k + LAST_AT + 1];
}

/** FindingRecord.plain as a number: the least plain of two is the smaller. */
const PLAIN_CODES: readonly (PlainText | undefined)[] = [undefined, 'json', 'script'];
const plainCode = (p: PlainText | undefined): number => (p === undefined ? 0 : p === 'json' ? 1 : 2);

/**
 * Groups in columns: numbers in typed arrays, text as bytes in a TextArena, run and plan lists
 * in two arrays. Nothing per group is a JavaScript object until a FindingSource makes it one.
 */
export class FindingGrouper {
  occurrences = 0;
  private n = 0;
  private readonly arena: TextArena;
  /** Arena bytes that no span points to (text replaced by a longer one). */
  private garbage = 0;
  private counts: Record<Severity, SeverityCount> | null = null;
  // Per group, by index. Times are epoch ms (-Infinity when unreadable), so merging compares
  // numbers.
  private hashes = new Int32Array(INITIAL_GROUPS);
  private typeIds = new Uint8Array(INITIAL_GROUPS);
  /** The representative's severity (as its rank: SEVERITIES' index) and action. */
  private ranks = new Uint8Array(INITIAL_GROUPS);
  private actionIds = new Uint8Array(INITIAL_GROUPS);
  private plains = new Uint8Array(INITIAL_GROUPS);
  private firstMs = new Float64Array(INITIAL_GROUPS);
  private lastMs = new Float64Array(INITIAL_GROUPS);
  /** Time of the representative occurrence. */
  private repMs = new Float64Array(INITIAL_GROUPS);
  /** Occurrences (FindingGroup.count). */
  private seen = new Int32Array(INITIAL_GROUPS);
  private spans = new Float64Array(INITIAL_GROUPS * SPAN_INTS);
  private readonly runs: (readonly string[])[] = [];
  private readonly plans: (readonly string[])[] = [];
  /** Open addressing: group index + 1, 0 for an empty slot; kept at most half full. */
  private slots = new Int32Array(INITIAL_GROUPS * 2);
  /** One single-element array per run / plan name, shared by the groups that have only it. */
  private readonly single = new Map<string, readonly string[]>();
  private lastRun = '';
  private lastRunList: readonly string[] = EMPTY;
  private lastPlan = '';
  private lastPlanList: readonly string[] = EMPTY;

  /** `memory` above `base` holds the findings' text (by default, a buffer of the grouper's own). */
  constructor(memory: ReportMemory = bufferMemory(), base = 0) {
    this.arena = new TextArena(memory, base);
  }

  /** Bytes of text held (for tests: replaced text must not pile up). */
  get textBytes(): number {
    return this.arena.top - this.arena.base;
  }

  add(r: FindingRecord): void {
    this.occurrences += 1;
    this.counts = null;
    this.compactIfWasteful();
    const file = normaliseFile(r.file);
    const typeId = TYPE_ORDER.get(r.type)!;
    const hash = hashText(file, hashTitle(r.title, Math.imul(FNV_OFFSET ^ typeId, FNV_PRIME)) ^ 0xff);
    let slot = this.probe(hash, hash, typeId);
    for (; this.slots[slot] !== 0; slot = this.probe(slot + 1, hash, typeId)) {
      const i = this.slots[slot]! - 1;
      if (normaliseFile(this.file(i)) === file && sameTitle(this.text(i, TITLE), r.title)) {
        const changed = this.fold(i, r.run, r.plan, plainCode(r.plain), timeOf(r.at), severityRank(r.severity), ACTION_ORDER.get(r.action)!);
        const k = i * SPAN_INTS;
        if (changed & FIRST) this.replace(k + FIRST_AT, r.at);
        if (changed & LAST) this.replace(k + LAST_AT, r.at);
        if (changed & REPRESENTATIVE) {
          this.replace(k + TITLE, r.title);
          this.replace(k + DETAIL, r.detail);
          if (r.file === null) this.dropFile(k);
          else this.replace(k + FILE, r.file);
        }
        return;
      }
    }
    const k = this.open(hash, slot, typeId, severityRank(r.severity), ACTION_ORDER.get(r.action)!, plainCode(r.plain), timeOf(r.at), r.run, r.plan);
    this.write(k + TITLE, r.title);
    this.write(k + DETAIL, r.detail);
    if (r.file === null) this.spans[k + FILE + 1] = -1;
    else this.write(k + FILE, r.file);
    this.write(k + FIRST_AT, r.at);
    this.shareTimes(k);
  }

  /**
   * add() for a line the scanner matched and isPlainFinding() accepted, read from its bytes: no
   * string is made from them unless two findings' text is the same only once normalised.
   */
  addScanned(line: ScannedLine): void {
    this.occurrences += 1;
    this.counts = null;
    this.compactIfWasteful();
    // Read before anything is copied: a copy can grow the memory, and then `line`'s views of it
    // are stale. After that, only addresses are used.
    const b = line.bytes;
    const o = line.offsets;
    const typeId = line.typeId;
    const titleFrom = o[FIELD.title]!;
    const titleTo = o[FIELD.title + 1]!;
    const fileFrom = o[FIELD.file]!;
    const fileTo = o[FIELD.file + 1]!;
    const detailFrom = o[FIELD.detail]!;
    const detailTo = o[FIELD.detail + 1]!;
    const atFrom = o[FIELD.at]!;
    const atTo = o[FIELD.at + 1]!;
    const ms = timeOfBytes(b, atFrom, atTo);
    const seed = Math.imul(FNV_OFFSET ^ typeId, FNV_PRIME);
    let titleHash = hashTitleBytes(b, titleFrom, titleTo, seed);
    if (titleHash === NOT_PLAIN) titleHash = hashTitle(b.toString('utf8', titleFrom, titleTo), seed);
    let hash = fileFrom === -1 ? titleHash ^ 0xff : hashFileBytes(b, fileFrom, fileTo, titleHash ^ 0xff);
    if (hash === NOT_PLAIN) hash = hashText(normaliseFile(b.toString('utf8', fileFrom, fileTo)), titleHash ^ 0xff);
    let slot = this.probe(hash, hash, typeId);
    for (; this.slots[slot] !== 0; slot = this.probe(slot + 1, hash, typeId)) {
      const i = this.slots[slot]! - 1;
      if (this.sameFileBytes(i, b, fileFrom, fileTo) && this.sameTitleBytes(i, b, titleFrom, titleTo)) {
        const changed = this.fold(i, line.run, line.plan, plainCode(line.plain), ms, line.rank, line.actionId);
        const k = i * SPAN_INTS;
        if (changed & FIRST) this.replaceBytes(k + FIRST_AT, atFrom, atTo);
        if (changed & LAST) this.replaceBytes(k + LAST_AT, atFrom, atTo);
        if (changed & REPRESENTATIVE) {
          this.replaceBytes(k + TITLE, titleFrom, titleTo);
          this.replaceBytes(k + DETAIL, detailFrom, detailTo);
          if (fileFrom === -1) this.dropFile(k);
          else this.replaceBytes(k + FILE, fileFrom, fileTo);
        }
        return;
      }
    }
    const k = this.open(hash, slot, typeId, line.rank, line.actionId, plainCode(line.plain), ms, line.run, line.plan);
    const spans = this.spans;
    const arena = this.arena;
    spans[k + TITLE] = arena.copy(titleFrom, titleTo - titleFrom);
    spans[k + TITLE + 1] = arena.appended;
    spans[k + DETAIL] = arena.copy(detailFrom, detailTo - detailFrom);
    spans[k + DETAIL + 1] = arena.appended;
    if (fileFrom === -1) spans[k + FILE + 1] = -1;
    else {
      spans[k + FILE] = arena.copy(fileFrom, fileTo - fileFrom);
      spans[k + FILE + 1] = arena.appended;
    }
    spans[k + FIRST_AT] = arena.copy(atFrom, atTo - atFrom);
    spans[k + FIRST_AT + 1] = arena.appended;
    this.shareTimes(k);
  }

  /** From `slot` on (wrapping around): the first slot that is empty, or holds a group with this
   *  hash and type (a candidate, whose text the caller compares). */
  private probe(slot: number, hash: number, typeId: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    for (let at = slot & mask; ; at = (at + 1) & mask) {
      const entry = slots[at]!;
      if (entry === 0 || (this.hashes[entry - 1] === hash && this.typeIds[entry - 1] === typeId)) return at;
    }
  }

  /** Whether group i's file is the same as `b[from, to)` (from -1: null) once normalised. */
  private sameFileBytes(i: number, b: Buffer, from: number, to: number): boolean {
    const k = i * SPAN_INTS + FILE;
    const length = this.spans[k + 1]!;
    if (from === -1 ? length === -1 : length !== -1 && this.arena.equals(this.spans[k]!, length, from, to - from)) return true;
    return normaliseFile(this.file(i)) === normaliseFile(from === -1 ? null : b.toString('utf8', from, to));
  }

  private sameTitleBytes(i: number, b: Buffer, from: number, to: number): boolean {
    const k = i * SPAN_INTS + TITLE;
    return this.arena.equals(this.spans[k]!, this.spans[k + 1]!, from, to - from) || sameTitle(this.text(i, TITLE), b.toString('utf8', from, to));
  }

  /** A new group, its numbers set; returns where its spans go, for the caller to fill. */
  private open(hash: number, slot: number, typeId: number, rank: number, actionId: number, plain: number, ms: number, run: string, plan: string): number {
    const i = this.n;
    if (i === this.hashes.length) this.growArrays();
    this.n = i + 1;
    this.hashes[i] = hash;
    this.typeIds[i] = typeId;
    this.ranks[i] = rank;
    this.actionIds[i] = actionId;
    this.plains[i] = plain;
    this.seen[i] = 1;
    this.firstMs[i] = ms;
    this.lastMs[i] = ms;
    this.repMs[i] = ms;
    this.runs.push(this.runList(run));
    this.plans.push(this.planList(plan));
    this.slots[slot] = i + 1;
    if ((i + 1) * 2 > this.slots.length) this.rehash();
    return i * SPAN_INTS;
  }

  /**
   * Another occurrence of group i: counts, lists, times and representative updated; returns
   * which of its text the caller must replace with the occurrence's (FIRST, LAST,
   * REPRESENTATIVE: title, detail and file).
   */
  private fold(i: number, run: string, plan: string, plain: number, ms: number, rank: number, actionId: number): number {
    let changed = 0;
    this.seen[i] = this.seen[i]! + 1;
    if (plain < this.plains[i]!) this.plains[i] = plain;
    this.runs[i] = withName(this.runs[i]!, this.runList(run));
    if (plan !== '') this.plans[i] = withName(this.plans[i]!, this.planList(plan));
    if (ms < this.firstMs[i]!) {
      this.firstMs[i] = ms;
      changed |= FIRST;
    }
    if (ms > this.lastMs[i]!) {
      this.lastMs[i] = ms;
      changed |= LAST;
    }
    // The representative is the most severe occurrence, and among equals the latest one.
    if (rank < this.ranks[i]! || (rank === this.ranks[i] && ms > this.repMs[i]!)) {
      this.ranks[i] = rank;
      this.actionIds[i] = actionId;
      this.repMs[i] = ms;
      changed |= REPRESENTATIVE;
    }
    return changed;
  }

  /** Appends `text` to the arena as span `at`. */
  private write(at: number, text: string): void {
    this.spans[at] = this.arena.write(text);
    this.spans[at + 1] = this.arena.appended;
  }

  private shareTimes(k: number): void {
    this.spans[k + LAST_AT] = this.spans[k + FIRST_AT]!;
    this.spans[k + LAST_AT + 1] = this.spans[k + FIRST_AT + 1]!;
  }

  private dropFile(k: number): void {
    const length = this.spans[k + FILE + 1]!;
    if (length > 0) this.garbage += length;
    this.spans[k + FILE + 1] = -1;
  }

  /** Whether span `at` shares its bytes with another (first and last time start out so). */
  private isShared(at: number): boolean {
    const k = at - (at % SPAN_INTS);
    return (at === k + FIRST_AT || at === k + LAST_AT) && sharedTimes(this.spans, k);
  }

  /** Span `at` now holds `text`: in its old place when that is the span's own and big enough. */
  private replace(at: number, text: string): void {
    const spans = this.spans;
    const length = spans[at + 1]!;
    if (!this.isShared(at) && length > 0) {
      const n = this.arena.overwrite(spans[at]!, length, text);
      if (n >= 0) {
        spans[at + 1] = n;
        this.garbage += length - n;
        return;
      }
      this.garbage += length;
    }
    this.write(at, text);
  }

  /** replace() with the bytes at `from` to `to` (in the same memory); nothing to do when they are
   *  the span's already. */
  private replaceBytes(at: number, from: number, to: number): void {
    const spans = this.spans;
    const length = spans[at + 1]!;
    const n = to - from;
    if (length >= 0 && this.arena.equals(spans[at]!, length, from, n)) return;
    if (!this.isShared(at) && length > 0) {
      if (n <= length) {
        this.arena.put(spans[at]!, from, n);
        spans[at + 1] = n;
        this.garbage += length - n;
        return;
      }
      this.garbage += length;
    }
    spans[at] = this.arena.copy(from, n);
    spans[at + 1] = n;
  }

  /** Rewrites the arena with only the text spans point to, once most of it is not. */
  private compactIfWasteful(): void {
    if (this.garbage > COMPACT_AT_BYTES && this.garbage * 2 > this.arena.top - this.arena.base) this.compact();
  }

  private compact(): void {
    const spans = this.spans;
    this.arena.compact((keep) => {
      for (let k = 0; k < this.n * SPAN_INTS; k += SPAN_INTS) {
        const shared = sharedTimes(spans, k);
        for (const f of [TITLE, DETAIL, FILE, FIRST_AT, LAST_AT]) {
          const length = spans[k + f + 1]!;
          if (length < 0 || (f === LAST_AT && shared)) continue;
          spans[k + f] = keep(spans[k + f]!, length);
        }
        if (shared) spans[k + LAST_AT] = spans[k + FIRST_AT]!;
      }
    });
    this.garbage = 0;
  }

  private orderOf(i: number): number {
    return orderOf(this.ranks[i]!, this.typeIds[i]!, this.actionIds[i]!);
  }

  private text(i: number, field: number): string {
    const at = i * SPAN_INTS + field;
    return this.arena.text(this.spans[at]!, this.spans[at + 1]!);
  }

  private file(i: number): string | null {
    return this.spans[i * SPAN_INTS + FILE + 1] === -1 ? null : this.text(i, FILE);
  }

  /** Group `i` as an object, its strings made from the arena. */
  private materialise(i: number): FindingGroup {
    const k = i * SPAN_INTS;
    const spans = this.spans;
    const firstAt = this.text(i, FIRST_AT);
    return {
      type: OBSERVATION_TYPES[this.typeIds[i]!]!,
      severity: SEVERITIES[this.ranks[i]!]!,
      action: ACTIONS[this.actionIds[i]!]!,
      title: this.text(i, TITLE),
      detail: this.text(i, DETAIL),
      file: this.file(i),
      count: this.seen[i]!,
      runs: this.runs[i]!,
      plans: this.plans[i]!,
      firstAt,
      lastAt: sharedTimes(spans, k) ? firstAt : this.text(i, LAST_AT),
    };
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

  private shared(name: string): readonly string[] {
    let list = this.single.get(name);
    if (list === undefined) {
      list = [name];
      this.single.set(name, list);
    }
    return list;
  }

  /**
   * Makes room for `groups` groups at once, where growing step by step would copy the arrays
   * (and touch their memory) about twice over. An estimate: more groups still fit, by growing.
   */
  reserve(groups: number): void {
    const n = Math.min(Math.ceil(groups), MAX_RESERVED_GROUPS);
    if (n <= this.hashes.length) return;
    this.growArrays(n);
    let slots = this.slots.length;
    while (slots < n * 2) slots *= 2;
    if (slots > this.slots.length) this.rehash(slots);
  }

  private growArrays(n = this.hashes.length * 2): void {
    const grow = <T extends Int32Array | Uint8Array | Uint16Array | Float64Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.hashes = grow(this.hashes, new Int32Array(n));
    this.typeIds = grow(this.typeIds, new Uint8Array(n));
    this.ranks = grow(this.ranks, new Uint8Array(n));
    this.actionIds = grow(this.actionIds, new Uint8Array(n));
    this.plains = grow(this.plains, new Uint8Array(n));
    this.firstMs = grow(this.firstMs, new Float64Array(n));
    this.lastMs = grow(this.lastMs, new Float64Array(n));
    this.repMs = grow(this.repMs, new Float64Array(n));
    this.seen = grow(this.seen, new Int32Array(n));
    this.spans = grow(this.spans, new Float64Array(n * SPAN_INTS));
  }

  private rehash(size = this.slots.length * 2): void {
    const slots = new Int32Array(size);
    const mask = slots.length - 1;
    for (let i = 0; i < this.n; i++) {
      let slot = this.hashes[i]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = i + 1;
    }
    this.slots = slots;
  }

  /** Every group as an object, in report order (see source()). */
  groups(): FindingGroup[] {
    const source = this.source();
    return source.slice(0, source.length);
  }

  /**
   * The groups in report order: by severity, then type and action (contract order), then most
   * seen, then first seen. Made into objects as they are asked for; findings added after this
   * call are not in it.
   */
  source(): FindingSource {
    const order = this.order();
    const length = order.length;
    const at = (j: number): number => {
      if (j < 0 || j >= length) throw new RangeError(`no finding ${j} of ${length}`);
      return order[j]!;
    };
    return {
      length,
      get: (j) => this.materialise(at(j)),
      slice: (from, to) => {
        const out: FindingGroup[] = [];
        for (let j = Math.max(0, from); j < Math.min(to, length); j++) out.push(this.materialise(order[j]!));
        return out;
      },
      count: (j) => this.seen[at(j)]!,
      severity: (j) => SEVERITIES[this.ranks[at(j)]!]!,
      fields: {
        kind: (j) => this.orderOf(at(j)),
        plain: (j) => PLAIN_CODES[this.plains[at(j)]!],
        type: (j) => OBSERVATION_TYPES[this.typeIds[at(j)]!]!,
        action: (j) => ACTIONS[this.actionIds[at(j)]!]!,
        runs: (j) => this.runs[at(j)]!,
        plans: (j) => this.plans[at(j)]!,
        hasFile: (j) => this.spans[at(j) * SPAN_INTS + FILE + 1] !== -1,
        // Above the text: nothing is added to the arena once its findings are being written.
        output: () => new ByteOutput(this.arena.memory, this.arena.top),
        text: (j, field, out) => {
          const k = at(j) * SPAN_INTS + field;
          const length = this.spans[k + 1]!;
          if (length > 0) out.copy(this.spans[k]!, length);
        },
      },
    };
  }

  private order(): Int32Array {
    const n = this.n;
    // A counting sort on the (few) severity/type/action combinations keeps first-seen order
    // within each; then only buckets holding a group seen more than once need a (stable) sort by
    // count.
    // The sort key of each group's severity, type and action.
    const orders = new Uint16Array(n);
    for (let i = 0; i < n; i++) orders[i] = this.orderOf(i);
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
        // Only lists of two or more names are the group's own; one name needs no sorting anyway.
        const runs = this.runs[i]!;
        const plans = this.plans[i]!;
        if (runs.length > 1) (runs as string[]).sort();
        if (plans.length > 1) (plans as string[]).sort();
      }
    }
    this.counts = Object.fromEntries(SEVERITIES.map((sev, r) => [sev, counts[r]!])) as Record<Severity, SeverityCount>;
    for (let o = 0; o < ORDER_LIMIT; o++) buckets[o + 1]! += buckets[o]!;
    const starts = buckets.slice();
    const sorted = new Int32Array(n);
    for (let i = 0; i < n; i++) sorted[buckets[orders[i]!]!++] = i;
    // Most findings are seen once: only those seen more often are sorted (stably, by count), and
    // go before the rest, which keep their first-seen order.
    for (let o = 0; o < ORDER_LIMIT; o++) {
      if (repeated[o] === 0) continue;
      const from = starts[o]!;
      const to = starts[o + 1]!;
      const seenMore: number[] = [];
      let once = to;
      for (let k = to - 1; k >= from; k--) {
        const i = sorted[k]!;
        if (seen[i]! > 1) seenMore.push(i);
        else sorted[--once] = i;
      }
      seenMore.reverse().sort((a, b) => seen[b]! - seen[a]!);
      for (let k = 0; k < seenMore.length; k++) sorted[from + k] = seenMore[k]!;
    }
    return sorted;
  }

  /** Distinct findings and occurrences per severity, as of the last groups() or source() call. */
  severityCounts(): Record<Severity, SeverityCount> {
    return this.counts ?? (this.order(), this.counts!);
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
