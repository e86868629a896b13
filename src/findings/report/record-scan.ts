// Reading findings.jsonl lines in the exact form ralph writes them, without JSON.parse.
//
// Why: JSON.parse builds an object and a string for every key and value of every line, and for
// 100,000 findings that garbage, and the collections it brings while the report's groups grow,
// cost more than the rest of `ralph report`. A line written by FindingsLog (JSON.stringify of a
// valid record, keys in their fixed order, strings without escapes) is matched here by a small
// WebAssembly function against a template of the line (keys byte by byte, string bodies and the
// line's end 16 bytes at a time), and only the values that are needed are decoded. Every other
// line (escapes, another key order, whitespace, a null iteration, an invalid record, a byte order
// mark, CRLF) is not matched, and is decoded and given to JSON.parse as before. Property tests
// hold both ways to the same records.

import { closeSync, openSync, readSync } from 'node:fs';
import { ACTIONS, OBSERVATION_TYPES, SEVERITIES } from '../../contract.js';
import { deliverLine, type LineHandlers } from './line-reader.js';
import type { PlainText } from './types.js';
import { Code, I32, MISC_MEMORY_COPY, op, PAGE, section, name, simd, uleb, V128, instantiator } from '../../util/wasm-assembler.js';
import { wasmMemory, type ReportMemory } from './report-memory.js';

/** Bytes a 16-byte load may read past the log. */
const SLACK = 16;
/** The template the function walks (see TEMPLATE_TEXT), then its answers, then the log. */
const TEMPLATE = 0;
const OFFSETS = 256;
/** Where a log is read to. */
export const INPUT = 512;
/** The biggest log read whole into memory (bigger ones are streamed and parsed line by line). */
export const INPUT_CAPACITY = 8 * 1024 * 1024;
/** Where the memory is free for the findings' text (report-memory.ts), past the log and slack
 *  (then aligned: the text's copies start on a cache line). */
export const ARENA_BASE = Math.ceil((INPUT + INPUT_CAPACITY + SLACK) / 64) * 64;

// Markers in the template: everything else is a byte the line must have at that place.
const END = 0x00;
/** A string's body: any bytes but '"', '\' and controls (so it needs no decoding of escapes). */
const STRING = 0x01;
/** A non-negative integer of at most 15 digits, written as JSON writes it (exact as a double). */
const INTEGER = 0x02;
/** null, or a string in quotes. */
const NULL_OR_STRING = 0x03;
const TEMPLATE_TEXT =
  '{"run":"\x01","plan":"\x01","iteration":\x02,"at":"\x01","valid":true,"type":"\x01","severity":"\x01",' +
  '"title":"\x01","detail":"\x01","file":\x03,"action":"\x01"}\x00';
/** Start and end of each value, in template order; -1, -1 for a null file. */
const FIELDS = ['run', 'plan', 'iteration', 'at', 'type', 'severity', 'title', 'detail', 'file', 'action'] as const;
/** Where each value's start is in ScannedLine.offsets (its end follows it). */
export const FIELD = Object.fromEntries(FIELDS.map((f, i) => [f, i * 2])) as Record<(typeof FIELDS)[number], number>;

// line(pos, stop) -> 0 unless the line from pos (to its '\n', or to stop) follows the template;
// then 1, or 3 when a string body may hold '<', '>', '&' or U+2028/U+2029. The line's end is
// stored at LINE_END and the values' offsets at OFFSETS. Line ends and string bodies are looked
// for 16 bytes at a time; the memory has 16 bytes of slack past the log.
const LINE_END = OFFSETS + FIELDS.length * 8;
const [P, S, T, K, C, B, D, E, M] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const [V_QUOTE, V_BACKSLASH, V_SPACE, V_LF] = [9, 10, 11, 12];
/** 13 is the 16 bytes being looked at; then '<', '>', '&', 0xe2 (U+2028 and U+2029 start with it)
 *  and the lanes where any of those was seen in a string body (a few bytes after one, too). */
const [V_BYTES, V_LT, V_GT, V_AMP, V_E2, V_SPECIAL] = [13, 14, 15, 16, 17, 18];
const c = new Code();
const fail = () => c.i32(0).emit(op.return);
const simdOp = (code: number) => c.emit(op.simd, ...uleb(code));
/** Stores the i32 that `value` pushes at the address in local K, plus `offset`. */
const storeAtK = (offset: number, value: () => void) => {
  c.get(K);
  value();
  c.emit(op.i32Store, 2, ...uleb(offset));
};
/** Fails unless P < E; then pushes the byte at P. */
const nextByte = () => {
  c.get(P).get(E).emit(op.geU).open(op.if);
  fail();
  c.close();
  c.byteAt(P);
};
/** Advances P to the '"' that ends a string body; fails at '\', a control byte or the line end. */
const stringBody = () => {
  c.open(op.block, 'body-end').open(op.loop, 'body');
  c.get(P).get(E).emit(op.geU).open(op.if);
  fail();
  c.close();
  // one bit for each '"', '\' or byte below 0x20 among the 16 bytes at P
  c.get(P);
  simdOp(simd.load).emit(0, 0);
  c.set(V_BYTES);
  // Bytes a script block must not hold as they are: noted, for the html format (conservatively:
  // the last 16 bytes may run past the body).
  c.get(V_SPECIAL);
  for (const v of [V_LT, V_GT, V_AMP, V_E2]) {
    c.get(V_BYTES).get(v);
    simdOp(simd.eq8);
    simdOp(simd.or);
  }
  c.set(V_SPECIAL);
  c.get(V_BYTES).get(V_QUOTE);
  simdOp(simd.eq8);
  c.get(V_BYTES).get(V_BACKSLASH);
  simdOp(simd.eq8);
  simdOp(simd.or);
  c.get(V_BYTES).get(V_SPACE);
  simdOp(simd.ltU8);
  simdOp(simd.or);
  simdOp(simd.bitmask8);
  c.emit(op.localTee, M).emit(op.eqz).open(op.if);
  c.get(P).i32(16).emit(op.add).set(P).br('body');
  c.close();
  c.get(P).get(M).emit(op.ctz, op.add).set(P);
  // The first such byte must be the closing quote, and on this line.
  c.get(P).get(E).emit(op.geU).open(op.if);
  fail();
  c.close();
  c.byteAt(P).i32(0x22).emit(op.ne).open(op.if);
  fail();
  c.close();
  c.close().close();
};
const advance = (local: number) => c.get(local).i32(1).emit(op.add).set(local);
const nextValue = () => {
  c.get(K).i32(8).emit(op.add).set(K);
  advance(T);
  c.br('next');
};
const splat = (byte: number, local: number) => {
  c.i32(byte);
  simdOp(simd.splat8);
  c.set(local);
};

splat(0x22, V_QUOTE);
splat(0x5c, V_BACKSLASH);
splat(0x20, V_SPACE);
splat(0x0a, V_LF);
splat(0x3c, V_LT);
splat(0x3e, V_GT);
splat(0x26, V_AMP);
splat(0xe2, V_E2);
splat(0, V_SPECIAL);
// E = the line's end: its '\n', or stop.
c.get(P).set(E);
c.open(op.block, 'found').open(op.loop, 'search');
c.get(E).get(S).emit(op.geU).open(op.if).get(S).set(E).br('found').close();
c.get(E);
simdOp(simd.load).emit(0, 0);
c.get(V_LF);
simdOp(simd.eq8);
simdOp(simd.bitmask8);
c.emit(op.localTee, M).open(op.if);
c.get(E).get(M).emit(op.ctz, op.add).set(E);
c.get(E).get(S).emit(op.gtU).open(op.if).get(S).set(E).close();
c.br('found');
c.close();
c.get(E).i32(16).emit(op.add).set(E).br('search');
c.close().close();
c.i32(LINE_END).get(E).emit(op.i32Store, 2, 0);

c.i32(TEMPLATE).set(T).i32(OFFSETS).set(K);
c.open(op.loop, 'next');
c.get(T).emit(op.load8u, 0, 0).set(C);
// The template's end: the line must end here too. 1 when it does, plus 2 when a string body may
// hold a byte a script block must escape.
c.get(C).i32(END).emit(op.eq).open(op.if);
c.get(P).get(E).emit(op.ne).open(op.if);
fail();
c.close();
c.get(V_SPECIAL);
simdOp(simd.anyTrue);
c.i32(1).emit(op.shl).i32(1).emit(op.or, op.return);
c.close();
c.get(C).i32(STRING).emit(op.eq).open(op.if);
{
  storeAtK(0, () => c.get(P));
  stringBody();
  storeAtK(4, () => c.get(P));
  nextValue();
}
c.close();
c.get(C).i32(INTEGER).emit(op.eq).open(op.if);
{
  storeAtK(0, () => c.get(P));
  nextByte();
  c.i32(0x30).emit(op.eq).open(op.if);
  advance(P); // a lone 0
  c.emit(op.else);
  c.i32(0).set(D);
  c.open(op.block, 'digits-end').open(op.loop, 'digits');
  c.get(P).get(E).emit(op.geU).br('digits-end', true);
  c.byteAt(P).i32(0x30).emit(op.sub).i32(9).emit(op.gtU).br('digits-end', true);
  advance(P);
  advance(D);
  c.br('digits');
  c.close().close();
  // One to fifteen digits, and the first is not 0 (checked above).
  c.get(D).emit(op.eqz).get(D).i32(15).emit(op.gtU, op.or).open(op.if);
  fail();
  c.close();
  c.close();
  storeAtK(4, () => c.get(P));
  nextValue();
}
c.close();
c.get(C).i32(NULL_OR_STRING).emit(op.eq).open(op.if);
{
  nextByte();
  c.i32(0x22).emit(op.eq).open(op.if);
  advance(P);
  storeAtK(0, () => c.get(P));
  stringBody();
  storeAtK(4, () => c.get(P));
  advance(P); // the closing quote
  c.emit(op.else);
  // "null", read as one little-endian word
  c.get(P).i32(4).emit(op.add).get(E).emit(op.gtU).open(op.if);
  fail();
  c.close();
  c.get(P).emit(op.i32Load, 0, 0).i32(0x6c6c756e).emit(op.ne).open(op.if);
  fail();
  c.close();
  c.get(P).i32(4).emit(op.add).set(P);
  storeAtK(0, () => c.i32(-1));
  storeAtK(4, () => c.i32(-1));
  c.close();
  nextValue();
}
c.close();
// A byte of the template itself.
nextByte();
c.get(C).emit(op.ne).open(op.if);
fail();
c.close();
advance(P);
advance(T);
c.br('next');
c.close(); // next
c.i32(0).emit(op.end);

const body = [2, 7, I32, 10, V128, ...c.bytes];
// copy(to, from, length): memory.copy, for report-memory.ts (a call and a memmove, where
// copyWithin() goes through a C++ builtin that costs several times more per call).
const copyBody = [0, ...new Code().get(0).get(1).get(2).emit(op.misc, ...uleb(MISC_MEMORY_COPY), 0, 0).bytes, op.end];
const wasm = Uint8Array.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [2, 0x60, 2, I32, I32, 1, I32, 0x60, 3, I32, I32, I32, 0]),
  ...section(3, [2, 0, 1]),
  // Pages up to ARENA_BASE from the start: the log's room is reserved, and is only touched (given
  // real memory by the system) as far as logs reach.
  ...section(5, [1, 0x00, ...uleb(Math.ceil(ARENA_BASE / PAGE))]),
  ...section(7, [3, ...name('memory'), 2, 0, ...name('line'), 0, 0, ...name('copy'), 0, 1]),
  ...section(10, [2, ...uleb(body.length), ...body, ...uleb(copyBody.length), ...copyBody]),
]);

const instance = instantiator<{
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  line(pos: number, stop: number): number;
  copy(to: number, from: number, length: number): void;
}>(wasm);

// The contract's names as bytes: a value written exactly so is that name, with no decoding. A
// name is found by its length and its first, middle and last bytes: one lookup, then one
// comparison (names that share all four, none today, are searched one by one).
export interface Names {
  bytes: readonly Uint8Array[];
  byKey: ReadonlyMap<number, number>;
}
const SHARED_KEY = -1;
/** A number for a name's length and its first, middle and last bytes (a name is under 256 bytes). */
const nameKey = (b: Uint8Array, from: number, to: number): number =>
  (((to - from) & 0xff) << 24) | (b[from]! << 16) | (b[(from + to) >> 1]! << 8) | b[to - 1]!;
export function names(list: readonly string[]): Names {
  const bytes = list.map((n) => Buffer.from(n, 'utf8'));
  const byKey = new Map<number, number>();
  for (const [k, b] of bytes.entries()) {
    const key = nameKey(b, 0, b.length);
    byKey.set(key, byKey.has(key) ? SHARED_KEY : k);
  }
  return { bytes, byKey };
}
/** The index in `names` of the name that `b[from, to)` is exactly, or -1. */
export function findName(names: Names, b: Uint8Array, from: number, to: number): number {
  if (to <= from) return -1;
  const k = names.byKey.get(nameKey(b, from, to));
  if (k === undefined) return -1;
  const shared = k === SHARED_KEY;
  for (let c = shared ? 0 : k; c < (shared ? names.bytes.length : k + 1); c++) {
    const n = names.bytes[c]!;
    if (n.length !== to - from) continue;
    let i = 0;
    while (i < n.length && b[from + i] === n[i]) i++;
    if (i === n.length) return c;
  }
  return -1;
}

const TYPE_NAMES = names(OBSERVATION_TYPES);
const SEVERITY_NAMES = names(SEVERITIES);
const ACTION_NAMES = names(ACTIONS);

/** A line's values as JSON.parse would give them, for the same checks (see record.ts). */
export type CanonicalValues = Record<(typeof FIELDS)[number] | 'valid', unknown>;

/**
 * The line last matched, as bytes: what group.ts needs to fold it in without decoding it. One
 * object, updated in place by each match (its views too: the memory may have grown since).
 */
export interface ScannedLine {
  /** The scanner's memory as it was at the match (see ReportMemory.u8). */
  bytes: Buffer;
  /** Start and end of each value (see FIELD): addresses in the memory; -1, -1 for a null file. */
  offsets: Int32Array;
  run: string;
  plan: string;
  /** Indexes in OBSERVATION_TYPES, SEVERITIES (the rank) and ACTIONS; -1 for a value that is
   *  not one of them as written. */
  typeId: number;
  rank: number;
  actionId: number;
  /** How plain its strings are (see PlainText). */
  plain: PlainText;
}

export interface RecordScanner {
  /** Where logs are read to, and what is free above ARENA_BASE for others to use. */
  readonly memory: ReportMemory;
  /** Reads a whole file (at most INPUT_CAPACITY bytes) to INPUT; returns where it ends. */
  load(fd: number, size: number): number;
  /** Whether the line at `start` (ending at its '\n' or at `stop`) is in ralph's own form: then
   *  `line` describes it. lineEnd() tells where the line ended, whatever the answer. */
  match(start: number, stop: number): boolean;
  readonly line: ScannedLine;
  /** The values of the line last matched, decoded. */
  values(): CanonicalValues;
  /** match(), then values(). */
  read(start: number, stop: number): CanonicalValues | undefined;
  lineEnd(): number;
}

/** A scanner with its own memory, or undefined where WebAssembly is not available. */
export function createRecordScanner(): RecordScanner | undefined {
  const exports = instance();
  if (exports === undefined) return undefined;
  const memory = wasmMemory(exports.memory, exports.copy);
  memory.u8.write(TEMPLATE_TEXT, TEMPLATE, 'latin1');
  // Views of the memory, made again when others (the findings' text) have grown it.
  let view = memory.u8;
  let offsets = new Int32Array(view.buffer, OFFSETS, FIELDS.length * 2 + 1);
  const refresh = (): void => {
    if (view === memory.u8) return;
    view = memory.u8;
    offsets = new Int32Array(view.buffer, OFFSETS, FIELDS.length * 2 + 1);
    line.offsets = offsets;
  };
  const line: ScannedLine = { bytes: view, offsets, run: '', plan: '', typeId: -1, rank: -1, actionId: -1, plain: 'json' };
  // The run and plan of the last line read: a log's lines nearly all share them.
  let runAt = -1;
  let runEnd = -1;
  let planAt = -1;
  let planEnd = -1;

  const same = (a: number, aEnd: number, b: number, bEnd: number): boolean => {
    if (aEnd - a !== bEnd - b || a < 0) return false;
    for (let i = 0; i < aEnd - a; i++) if (view[a + i] !== view[b + i]) return false;
    return true;
  };
  const text = (at: number): string => view.utf8Slice(offsets[at]!, offsets[at + 1]!);
  /** The index in `names` of the value at `at` when it is written exactly as that name, else -1. */
  const nameIndex = (at: number, names: Names): number => findName(names, view, offsets[at]!, offsets[at + 1]!);
  const nameOf = (at: number, id: number, strings: readonly string[]): string => (id >= 0 ? strings[id]! : text(at));

  const scanner: RecordScanner = {
    line,
    memory,
    load(fd, size) {
      if (size > INPUT_CAPACITY) throw new RangeError(`a log of ${size} bytes is bigger than the ${INPUT_CAPACITY} bytes read whole`);
      refresh();
      let got = 0;
      while (got < size) {
        const n = readSync(fd, view, INPUT + got, size - got, null);
        if (n === 0) break;
        got += n;
      }
      runAt = planAt = -1;
      return INPUT + got;
    },
    lineEnd: () => {
      refresh();
      return offsets[FIELDS.length * 2]!;
    },
    match(start, stop) {
      refresh();
      line.bytes = view;
      const answer = exports.line(start, stop);
      if (answer === 0) return false;
      line.plain = answer === 1 ? 'script' : 'json';
      const o = offsets;
      if (!same(runAt, runEnd, o[FIELD.run]!, o[FIELD.run + 1]!)) {
        line.run = text(FIELD.run);
        runAt = o[FIELD.run]!;
        runEnd = o[FIELD.run + 1]!;
      }
      if (!same(planAt, planEnd, o[FIELD.plan]!, o[FIELD.plan + 1]!)) {
        line.plan = text(FIELD.plan);
        planAt = o[FIELD.plan]!;
        planEnd = o[FIELD.plan + 1]!;
      }
      line.typeId = nameIndex(FIELD.type, TYPE_NAMES);
      line.rank = nameIndex(FIELD.severity, SEVERITY_NAMES);
      line.actionId = nameIndex(FIELD.action, ACTION_NAMES);
      return true;
    },
    values() {
      refresh();
      const o = offsets;
      let iteration = 0;
      for (let i = o[FIELD.iteration]!; i < o[FIELD.iteration + 1]!; i++) iteration = iteration * 10 + view[i]! - 0x30;
      return {
        run: line.run,
        plan: line.plan,
        iteration,
        at: text(FIELD.at),
        valid: true,
        type: nameOf(FIELD.type, line.typeId, OBSERVATION_TYPES),
        severity: nameOf(FIELD.severity, line.rank, SEVERITIES),
        title: text(FIELD.title),
        detail: text(FIELD.detail),
        file: o[FIELD.file] === -1 ? null : text(FIELD.file),
        action: nameOf(FIELD.action, line.actionId, ACTIONS),
      };
    },
    read(start, stop) {
      return scanner.match(start, stop) ? scanner.values() : undefined;
    },
  };
  return scanner;
}

/**
 * A log read whole into the scanner's memory: lines in ralph's own form go to `record` as
 * values, any other line is decoded and goes to the handlers as forEachLineIn would give it.
 */
export function scanLog(
  scanner: RecordScanner,
  path: string,
  size: number,
  handlers: LineHandlers,
  maxLineChars: number,
  record: (line: ScannedLine, lineNumber: number) => void,
): void {
  const fd = openSync(path, 'r');
  let stop: number;
  try {
    stop = scanner.load(fd, size);
  } finally {
    closeSync(fd);
  }
  let n = 0;
  for (let at = INPUT; at < stop; ) {
    n += 1;
    const matched = scanner.match(at, stop);
    const end = scanner.lineEnd();
    // A line longer in bytes than the limit may still be short enough in characters.
    if (matched && end - at <= maxLineChars) record(scanner.line, n);
    else deliverLine(scanner.memory.u8.toString('utf8', at, end), n, handlers, maxLineChars);
    at = end + 1;
  }
}
