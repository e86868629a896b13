// The quiet-line skip (quiet-lines.ts) as a small WebAssembly function using 128-bit SIMD: it
// looks for line ends 16 bytes at a time and returns to JavaScript only at a line that may matter.
// A native Buffer.indexOf per line costs a call into C++ for every line (~4 million in a 200 MB
// transcript); this costs one call per chunk and per line that starts like a signal, a fence or
// the claim. The module is assembled below from its text form, so it can be read and reviewed; a
// differential property test holds it to the JavaScript version.

import { Code, I32, op, PAGE, section, name, simd, slebBig, uleb, V128, instantiator } from '../util/wasm-assembler.js';
import { SIGNIFICANT_FIRST_BYTES, SPACE, TAB } from './bytes.js';

/** Bytes a scanner holds at once; longer chunks are fed to it in pieces. */
export const SCAN_CAPACITY = 1 << 18;
// One page more than the capacity: a 16-byte load may start up to 15 bytes before the end, and
// the first-byte table lives there.
const PAGES = SCAN_CAPACITY / PAGE + 1;

// scan(pos, end, stop, maxLine) -> start of the line where it stopped, the same line as
// skipQuietLines (quiet-lines.ts) stops at. In memory at RESULTS: lines (skipped), lineEnd (the LF of the line
// where it stopped, or -1 when that line is unterminated before `end`).
//
// Two paths. The fast one takes lines whose first byte settles that they are quiet (not a blank,
// '#', '`', '~' or 'L': one table lookup), 16 bytes per load and a few instructions per line end.
// The slow one takes one line at a time and looks at it as skipQuietLines does; it also takes
// every case the fast one leaves (a chunk's last bytes, `stop`, an over-long line).
const [POS, END, STOP, MAX, I, NL, MASK, B, F, LINES, L] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const LOCALS = 7; // I..L, after the four parameters
const V_LF = 11; // a v128 local after them: sixteen LFs (set once: V8 does not hoist a splat out of a loop)
/** 256 bytes, one per byte value: 1 when a line starting with it needs the slow path. */
const FIRST_BYTE_TABLE = SCAN_CAPACITY + 64;
/** scan()'s other results, two i32s (JavaScript reads memory faster than exported globals). */
const RESULTS = FIRST_BYTE_TABLE + 256;
const R_LINES = RESULTS;
const R_LINE_END = RESULTS + 4;
const SLOW_FIRST_BYTES = [SPACE, TAB, ...SIGNIFICANT_FIRST_BYTES];
const c = new Code();
/** Pushes 1 when the line starting at POS needs the slow path. */
const startsSlow = () => c.byteAt(POS).emit(op.load8u, 0, ...uleb(FIRST_BYTE_TABLE));
/** Pushes bitmask(16 bytes at I == LF). */
const lineEndsAtI = () => c.get(I).emit(op.simd, simd.load, 0, 0).get(V_LF).emit(op.simd, simd.eq8, op.simd, ...uleb(simd.bitmask8));
c.i32(0x0a).emit(op.simd, simd.splat8).set(V_LF);
c.open(op.block, 'done').open(op.loop, 'next-line');
c.open(op.block, 'slow');
{
  startsSlow().br('slow', true);
  c.get(POS).set(I);
  c.open(op.loop, 'fast');
  c.get(I).get(END).emit(op.geU).br('slow', true);
  lineEndsAtI().set(MASK);
  c.open(op.block, 'block-done');
  c.get(MASK).emit(op.eqz).br('block-done', true);
  c.open(op.loop, 'line-end');
  c.get(I).get(MASK).emit(op.ctz, op.add).set(NL);
  // The slow path settles a stale line end, a line holding `stop` and an over-long line.
  c.get(NL).get(END).emit(op.geU).br('slow', true);
  c.get(NL).get(STOP).emit(op.gtU).br('slow', true);
  c.get(NL).get(POS).emit(op.sub).get(MAX).emit(op.gtU).br('slow', true);
  c.get(LINES).i32(1).emit(op.add).set(LINES);
  c.get(NL).i32(1).emit(op.add).set(POS);
  startsSlow().br('slow', true);
  c.get(MASK).get(MASK).i32(1).emit(op.sub, op.and).emit(op.localTee, MASK).br('line-end', true);
  c.close(); // line-end
  c.close(); // block-done
  c.get(I).i32(16).emit(op.add).set(I).br('fast');
  c.close(); // fast
}
c.close(); // slow
c.get(POS).set(I);
{
  c.open(op.block, 'found').open(op.loop, 'search');
  // i >= end: no line end in this chunk
  c.get(I).get(END).emit(op.geU).open(op.if).store(R_LINE_END, () => c.i32(-1)).br('done').close();
  // mask = one bit for each '\n' among the 16 bytes at i
  lineEndsAtI().emit(op.localTee, MASK).open(op.if).get(I).get(MASK).emit(op.ctz, op.add).set(NL).br('found').close();
  c.get(I).i32(16).emit(op.add).set(I).br('search');
  c.close().close();
}
// A line end at or past `end` is stale memory: the line is unterminated.
c.get(NL).get(END).emit(op.geU).open(op.if).store(R_LINE_END, () => c.i32(-1)).br('done').close();
c.store(R_LINE_END, () => c.get(NL));
c.get(NL).get(STOP).emit(op.gtU).br('done', true);
c.get(NL).get(POS).emit(op.sub).get(MAX).emit(op.gtU).br('done', true);
// b = the first byte that is not a space or a tab (the LF stops the search at the latest)
c.get(POS).set(F);
c.open(op.block, 'blank-end').open(op.loop, 'blank');
c.byteAt(F).emit(op.localTee, B).i32(0x20).emit(op.eq).get(B).i32(0x09).emit(op.eq, op.or, op.eqz).br('blank-end', true);
c.get(F).i32(1).emit(op.add).set(F).br('blank');
c.close().close();
c.open(op.block, 'quiet');
{
  // '#': it matters when it starts with ### and, trimmed, ends with ###, six bytes at least
  c.get(B).i32(0x23).emit(op.eq).open(op.if);
  c.byteAt(F, 1).i32(0x23).emit(op.ne).br('quiet', true);
  c.byteAt(F, 2).i32(0x23).emit(op.ne).br('quiet', true);
  c.get(NL).set(L);
  c.open(op.block, 'trimmed').open(op.loop, 'trim');
  c.get(L).i32(1).emit(op.sub).emit(op.load8u, 0, 0).emit(op.localTee, MASK);
  c.i32(0x20).emit(op.eq).get(MASK).i32(0x09).emit(op.eq, op.or).get(MASK).i32(0x0d).emit(op.eq, op.or, op.eqz).br('trimmed', true);
  c.get(L).i32(1).emit(op.sub).set(L).br('trim');
  c.close().close();
  c.get(L).get(F).emit(op.sub).i32(6).emit(op.geU);
  c.get(L).i32(1).emit(op.sub).emit(op.load8u, 0, 0).i32(0x23).emit(op.eq, op.and);
  c.get(L).i32(2).emit(op.sub).emit(op.load8u, 0, 0).i32(0x23).emit(op.eq, op.and);
  c.get(L).i32(3).emit(op.sub).emit(op.load8u, 0, 0).i32(0x23).emit(op.eq, op.and);
  c.br('done', true).br('quiet');
  c.close();
  // ` or ~: it matters when the line starts with three of them
  c.get(B).i32(0x60).emit(op.eq).get(B).i32(0x7e).emit(op.eq, op.or).open(op.if);
  c.byteAt(F, 1).get(B).emit(op.eq).byteAt(F, 2).get(B).emit(op.eq, op.and).br('done', true).br('quiet');
  c.close();
  // 'L': it matters when 'O' follows (LOOP_COMPLETE)
  c.get(B).i32(0x4c).emit(op.eq).open(op.if);
  c.byteAt(F, 1).i32(0x4f).emit(op.eq).br('done', true);
  c.close();
}
c.close(); // quiet
c.get(LINES).i32(1).emit(op.add).set(LINES);
c.get(NL).i32(1).emit(op.add).set(POS);
c.br('next-line');
c.close().close(); // next-line, done
c.store(R_LINES, () => c.get(LINES)).get(POS).emit(op.end);

// findTag(pos, end) -> where the first `<observation` lies wholly in [pos, end), or -1: "<o"
// looked for 64 bytes at a time, then in the 16 bytes where one is, each compared to the whole
// tag as two words. (In agents' output '<' is common, in stack traces and generics; "<o" is not.)
export const TAG = '<observation';
const TAG_HEAD = Buffer.from(TAG, 'latin1').readBigInt64LE(0);
const TAG_TAIL = Buffer.from(TAG, 'latin1').readInt32LE(8);
const [T_POS, T_END, T_I, T_MASK, T_K, T_LIMIT, T_V_LT, T_V_O] = [0, 1, 2, 3, 4, 5, 6, 7];
const t = new Code();
/** Pushes a v128 with 0xff in each lane of the 16 bytes at I + offset that holds "<o". */
const ltO = (offset: number) =>
  t.get(T_I).emit(op.simd, simd.load, 0, ...uleb(offset)).get(T_V_LT).emit(op.simd, simd.eq8)
    .get(T_I).emit(op.simd, simd.load, 0, ...uleb(offset + 1)).get(T_V_O).emit(op.simd, simd.eq8)
    .emit(op.simd, ...uleb(simd.and));
t.i32(0x3c).emit(op.simd, simd.splat8).set(T_V_LT);
t.i32(0x6f).emit(op.simd, simd.splat8).set(T_V_O);
t.get(T_POS).set(T_I);
t.open(op.block, 'none').open(op.loop, 'wide');
t.get(T_I).get(T_END).emit(op.geU).br('none', true);
ltO(0);
for (const offset of [16, 32, 48]) ltO(offset).emit(op.simd, ...uleb(simd.or));
t.emit(op.simd, ...uleb(simd.anyTrue)).open(op.if);
{
  t.get(T_I).i32(64).emit(op.add).set(T_LIMIT);
  t.open(op.loop, 'block');
  ltO(0).emit(op.simd, ...uleb(simd.bitmask8)).set(T_MASK);
  t.open(op.block, 'block-done').open(op.loop, 'lt');
  t.get(T_MASK).emit(op.eqz).br('block-done', true);
  t.get(T_I).get(T_MASK).emit(op.ctz, op.add).set(T_K);
  // A "<o" at or past `end` is stale memory: nothing further is in this chunk.
  t.get(T_K).get(T_END).emit(op.geU).br('none', true);
  t.get(T_K).i32(TAG.length).emit(op.add).get(T_END).emit(op.leU);
  t.get(T_K).emit(op.i64Load, 0, 0, op.i64Const, ...slebBig(TAG_HEAD), op.i64Eq, op.and);
  t.get(T_K).emit(op.i32Load, 0, 8).i32(TAG_TAIL).emit(op.eq, op.and);
  t.open(op.if).get(T_K).emit(op.return).close();
  t.get(T_MASK).get(T_MASK).i32(1).emit(op.sub, op.and).set(T_MASK).br('lt');
  t.close().close(); // lt, block-done
  t.get(T_I).i32(16).emit(op.add).emit(op.localTee, T_I).get(T_LIMIT).emit(op.ltU).br('block', true);
  t.close(); // block
  t.br('wide');
}
t.close(); // if
t.get(T_I).i32(64).emit(op.add).set(T_I).br('wide');
t.close().close(); // wide, none
t.i32(-1).emit(op.end);

const body = [2, LOCALS, I32, 1, V128, ...c.bytes];
const findBody = [2, 4, I32, 2, V128, ...t.bytes];
const bytes = Uint8Array.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [2, 0x60, 4, I32, I32, I32, I32, 1, I32, 0x60, 2, I32, I32, 1, I32]),
  ...section(3, [2, 0, 1]),
  ...section(5, [1, 0x00, ...uleb(PAGES)]),
  ...section(7, [3, ...name('memory'), 2, 0, ...name('scan'), 0, 0, ...name('findTag'), 0, 1]),
  ...section(10, [2, ...uleb(body.length), ...body, ...uleb(findBody.length), ...findBody]),
]);

export interface WasmLineScan {
  /** Where chunks are copied to be scanned: SCAN_CAPACITY bytes of the module's memory. */
  readonly scratch: Buffer;
  scan(pos: number, end: number, stop: number, maxLine: number): number;
  /** Where the first TAG lies wholly in [pos, end) of the scratch, or -1. */
  findTag(pos: number, end: number): number;
  /** After scan(): [lines skipped, lineEnd]. */
  readonly results: Int32Array;
}

const instance = instantiator<{
  memory: { buffer: ArrayBuffer };
  scan: WasmLineScan['scan'];
  findTag: WasmLineScan['findTag'];
}>(bytes);

/** A scanner with its own memory, or undefined where WebAssembly SIMD is not available. */
export function createWasmLineScan(): WasmLineScan | undefined {
  const exports = instance();
  if (exports === undefined) return undefined;
  // The memory never grows, so these views stay valid.
  const scratch = Buffer.from(exports.memory.buffer, 0, SCAN_CAPACITY);
  const table = new Uint8Array(exports.memory.buffer, FIRST_BYTE_TABLE, 256);
  for (const b of SLOW_FIRST_BYTES) table[b] = 1;
  const results = new Int32Array(exports.memory.buffer, RESULTS, 2);
  return { scratch, scan: exports.scan, findTag: exports.findTag, results };
}
