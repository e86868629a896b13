// A small assembler for hand-written WebAssembly: the opcodes ralph's scanners use, LEB128
// numbers, sections, and a code builder whose branches name their target block. Modules are
// built from this text form at load time, so they can be read and reviewed like other code.

export const I32 = 0x7f;
export const V128 = 0x7b;
export const VOID = 0x40;
export const op = {
  block: 0x02, loop: 0x03, if: 0x04, else: 0x05, end: 0x0b, br: 0x0c, brIf: 0x0d,
  localGet: 0x20, localSet: 0x21, localTee: 0x22,
  load8u: 0x2d, i32Const: 0x41, eqz: 0x45, eq: 0x46, ne: 0x47, ltU: 0x49, gtU: 0x4b, geU: 0x4f,
  ctz: 0x68, add: 0x6a, sub: 0x6b, and: 0x71, or: 0x72, shl: 0x74,
  return: 0x0f, i32Load: 0x28, i64Load: 0x29, i32Store: 0x36, i64Const: 0x42, i64Eq: 0x51, leU: 0x4d,
  simd: 0xfd,
  /** Prefix of the bulk memory instructions (MISC_MEMORY_COPY). */
  misc: 0xfc,
} as const;
/** memory.copy, after op.misc; then two memory indexes (0, 0). */
export const MISC_MEMORY_COPY = 10;
export const simd = { load: 0x00, splat8: 0x0f, eq8: 0x23, ltU8: 0x26, and: 0x4e, or: 0x50, anyTrue: 0x53, bitmask8: 0x64 } as const;

/** Bytes in a WebAssembly memory page. */
export const PAGE = 1 << 16;

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

export function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

/** Emits code; branches name their target block, and the depth is counted here. */
export class Code {
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
  /** Stores the i32 that `value` pushes at `address`. */
  store(address: number, value: () => void): this {
    this.i32(0);
    value();
    return this.emit(op.i32Store, 2, ...uleb(address));
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

export function slebBig(n: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(n & 0x7fn);
    n >>= 7n;
    if ((n === 0n && (b & 0x40) === 0) || (n === -1n && (b & 0x40) !== 0)) return [...out, b];
    out.push(b | 0x80);
  }
}

export const name = (s: string) => [...uleb(s.length), ...Buffer.from(s, 'ascii')];
export const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];

/** The little of the WebAssembly API used here (the project's type libraries do not declare it). */
export interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}


/**
 * Compiles `bytes` at the first call and makes a new instance (with its own memory) at each;
 * undefined where WebAssembly, or a feature the module uses such as SIMD, is not available.
 */
export function instantiator<T>(bytes: Uint8Array): () => T | undefined {
  let compiled: object | null | undefined;
  return () => {
    const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
    if (compiled === undefined) {
      try {
        compiled = api?.validate(bytes) ? new api.Module(bytes) : null;
      } catch {
        compiled = null;
      }
    }
    if (!api || compiled === null) return undefined;
    return new api.Instance(compiled, {}).exports as T;
  };
}
