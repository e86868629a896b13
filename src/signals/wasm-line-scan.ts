// The quiet-line skip (quiet-lines.ts) as a small WebAssembly function using 128-bit SIMD: it
// looks for line ends 16 bytes at a time and returns to JavaScript only at a line that may matter.
// A native Buffer.indexOf per line costs a call into C++ for every line (~4 million in a 200 MB
// transcript); this costs one call per chunk and per line that starts like a signal, a fence or
// the claim. The module is assembled below from its text form, so it can be read and reviewed; a
// differential property test holds it to the JavaScript version.

/** Bytes a scanner holds at once; longer chunks are fed to it in pieces. */
export const SCAN_CAPACITY = 1 << 18;
const PAGE = 1 << 16;
// One page more than the capacity: a 16-byte load may start up to 15 bytes before the end.
const PAGES = SCAN_CAPACITY / PAGE + 1;

const I32 = 0x7f;
const VOID = 0x40;
const op = {
  block: 0x02, loop: 0x03, if: 0x04, end: 0x0b, br: 0x0c, brIf: 0x0d,
  localGet: 0x20, localSet: 0x21, localTee: 0x22, globalSet: 0x24,
  load8u: 0x2d, i32Const: 0x41, eqz: 0x45, eq: 0x46, ne: 0x47, gtU: 0x4b, geU: 0x4f,
  ctz: 0x68, add: 0x6a, sub: 0x6b, and: 0x71, or: 0x72,
  simd: 0xfd,
} as const;
const simd = { load: 0x00, splat8: 0x0f, eq8: 0x23, bitmask8: 0x64 } as const;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

/** Emits code; branches name their target block, and the depth is counted here. */
class Code {
  readonly bytes: number[] = [];
  private readonly labels: (string | undefined)[] = [];
  emit(...bytes: number[]): this {
    this.bytes.push(...bytes);
    return this;
  }
  get(local: number): this {
    return this.emit(op.localGet, local);
  }
  set(local: number): this {
    return this.emit(op.localSet, local);
  }
  i32(n: number): this {
    return this.emit(op.i32Const, ...sleb(n));
  }
  /** Pushes the byte at address `local` + `offset`. */
  byteAt(local: number, offset = 0): this {
    return this.get(local).emit(op.load8u, 0, ...uleb(offset));
  }
  open(kind: typeof op.block | typeof op.loop | typeof op.if, label?: string): this {
    this.labels.push(label);
    return this.emit(kind, VOID);
  }
  close(): this {
    this.labels.pop();
    return this.emit(op.end);
  }
  br(label: string, conditional = false): this {
    const depth = this.labels.length - 1 - this.labels.lastIndexOf(label);
    if (depth >= this.labels.length) throw new Error(`no block ${label}`);
    return this.emit(conditional ? op.brIf : op.br, depth);
  }
}

const name = (s: string) => [...uleb(s.length), ...Buffer.from(s, 'ascii')];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];

// scan(pos, end, stop, maxLine) -> start of the line where it stopped, the same line as
// skipQuietLines (quiet-lines.ts) stops at. Globals: lines (skipped), lineEnd (the LF of the line
// where it stopped, or -1 when that line is unterminated before `end`).
const [POS, END, STOP, MAX, I, NL, MASK, B, F, LINES, L] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const LOCALS = 7; // I..L, after the four parameters
const G_LINES = 0;
const G_LINE_END = 1;
const c = new Code();
c.get(POS).set(I);
c.open(op.block, 'done').open(op.loop, 'line');
{
  c.open(op.block, 'found').open(op.loop, 'search');
  // i >= end: no line end in this chunk
  c.get(I).get(END).emit(op.geU).open(op.if).i32(-1).emit(op.globalSet, G_LINE_END).br('done').close();
  // mask = one bit for each '\n' among the 16 bytes at i
  c.get(I).emit(op.simd, simd.load, 0, 0).i32(0x0a).emit(op.simd, simd.splat8, op.simd, simd.eq8, op.simd, ...uleb(simd.bitmask8));
  c.emit(op.localTee, MASK).open(op.if).get(I).get(MASK).emit(op.ctz, op.add).set(NL).br('found').close();
  c.get(I).i32(16).emit(op.add).set(I).br('search');
  c.close().close();
}
// A line end at or past `end` is stale memory: the line is unterminated.
c.get(NL).get(END).emit(op.geU).open(op.if).i32(-1).emit(op.globalSet, G_LINE_END).br('done').close();
c.get(NL).emit(op.globalSet, G_LINE_END);
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
c.get(NL).i32(1).emit(op.add).emit(op.localTee, POS).set(I);
c.br('line');
c.close().close(); // line, done
c.get(LINES).emit(op.globalSet, G_LINES).get(POS).emit(op.end);

const body = [1, LOCALS, I32, ...c.bytes];
const bytes = Uint8Array.from([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [1, 0x60, 4, I32, I32, I32, I32, 1, I32]),
  ...section(3, [1, 0]),
  ...section(5, [1, 0x00, ...uleb(PAGES)]),
  ...section(6, [2, I32, 1, op.i32Const, 0, op.end, I32, 1, op.i32Const, 0, op.end]),
  ...section(7, [4, ...name('memory'), 2, 0, ...name('scan'), 0, 0, ...name('lines'), 3, G_LINES, ...name('lineEnd'), 3, G_LINE_END]),
  ...section(10, [1, ...uleb(body.length), ...body]),
]);

/** The little of the WebAssembly API used here (the project's type libraries do not declare it). */
interface WasmGlobal {
  readonly value: unknown;
}
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

export interface WasmLineScan {
  /** Where chunks are copied to be scanned: SCAN_CAPACITY bytes of the module's memory. */
  readonly scratch: Buffer;
  scan(pos: number, end: number, stop: number, maxLine: number): number;
  readonly lines: WasmGlobal;
  readonly lineEnd: WasmGlobal;
}

let compiled: object | null | undefined;

/** A scanner with its own memory, or undefined where WebAssembly SIMD is not available. */
export function createWasmLineScan(): WasmLineScan | undefined {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (compiled === undefined) {
    try {
      compiled = api?.validate(bytes) ? new api.Module(bytes) : null;
    } catch {
      compiled = null;
    }
  }
  if (!api || compiled === null) return undefined;
  const exports = new api.Instance(compiled, {}).exports as {
    memory: { buffer: ArrayBuffer };
    scan: WasmLineScan['scan'];
    lines: WasmGlobal;
    lineEnd: WasmGlobal;
  };
  // The memory never grows, so this view stays valid.
  const scratch = Buffer.from(exports.memory.buffer, 0, SCAN_CAPACITY);
  return { scratch, scan: exports.scan, lines: exports.lines, lineEnd: exports.lineEnd };
}
