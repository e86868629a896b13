// One block of memory behind `ralph report`: the log being read (record-scan.ts), the findings'
// text (text-arena.ts) and the report's findings as they are written out (byte-output.ts).
//
// Why one block: text moves from the log to the arena and from the arena to the output by a
// memmove inside it (WebAssembly's memory.copy, a few ns a call; copyWithin() without WebAssembly).
// Between two buffers each copy needs a view made first (set()) or a JavaScript loop: ten times
// that, and there are a million such copies in a report of 100,000 findings.

import { PAGE } from '../../util/wasm-assembler.js';

/**
 * A Buffer with the UTF-8 codec Node's toString() and write() use, called without their argument
 * checks (for short texts the checks cost a tenth of the work). Present since Node's early days.
 */
export type CodecBuffer = Buffer & {
  utf8Slice(start: number, end: number): string;
  utf8Write(text: string, offset: number, length: number): number;
};
const codec = (b: Buffer): CodecBuffer => b as CodecBuffer;

export interface ReportMemory {
  /** All of it. Replaced when the memory grows: read it again after anything that may grow it. */
  u8: CodecBuffer;
  /** Makes the memory at least `bytes` long. */
  ensure(bytes: number): void;
  /** Copies `length` bytes from `from` to `to` (which may overlap), like copyWithin(). */
  copy(to: number, from: number, length: number): void;
}

/** A WebAssembly memory (the scanner's), with the module's memory.copy: grown in place, its
 *  contents never copied. */
export function wasmMemory(memory: { buffer: ArrayBuffer; grow(pages: number): number }, copy: ReportMemory['copy']): ReportMemory {
  const m: ReportMemory = {
    copy,
    u8: codec(Buffer.from(memory.buffer)),
    ensure(bytes) {
      if (bytes <= m.u8.length) return;
      const pages = Math.ceil((bytes - m.u8.length) / PAGE);
      // Grow by at least a quarter each time, so that growing costs little in all.
      try {
        memory.grow(Math.max(pages, Math.ceil(m.u8.length / PAGE / 4)));
      } catch {
        try {
          memory.grow(pages);
        } catch {
          throw new RangeError(`the findings' text needs ${bytes} bytes of memory, more than a WebAssembly memory holds (4 GiB)`);
        }
      }
      m.u8 = codec(Buffer.from(memory.buffer));
    },
  };
  return m;
}

/** A plain buffer, copied to a bigger one as it grows: where WebAssembly is not available. */
export function bufferMemory(initialBytes = 1 << 20): ReportMemory {
  const m: ReportMemory = {
    copy: (to, from, length) => m.u8.copyWithin(to, from, from + length),
    u8: codec(Buffer.alloc(initialBytes)),
    ensure(bytes) {
      if (bytes <= m.u8.length) return;
      const grown = Buffer.alloc(Math.max(bytes, m.u8.length * 2));
      m.u8.copy(grown);
      m.u8 = codec(grown);
    },
  };
  return m;
}
