// The findings' text as UTF-8 bytes in buffers outside the JavaScript heap.
//
// Why: a report keeps the text of every distinct finding (tens of MB for 100,000 findings) while
// it reads the rest of the logs. As strings, the young-generation collector copied all of it,
// and the objects around it, at every collection until it was promoted, and the old generation
// then marked it again: that was a third of `ralph report`'s time. Bytes in a Buffer are never
// traced or moved; strings are made from them only when a slice of the report is rendered.
//
// The bytes live in chunks that are never copied or grown: a buffer grown by doubling touches
// (and page-faults in) twice the memory it ends up holding.

import { isAscii } from 'node:buffer';

/** Chunk size; a text longer than this gets a chunk of its own, a whole number of CHUNKs long. */
export const CHUNK = 1 << 20;

const UNKNOWN = 2;
/** Texts read from a chunk one by one before it is decoded whole (see text()). */
const WHOLE_AFTER_READS = 256;

/** Buffer's own UTF-8 codec, without toString()'s and write()'s argument checks. */
interface Latin1Slicing {
  latin1Slice(start: number, end: number): string;
}

interface Utf8Codec {
  utf8Slice(start: number, end: number): string;
  utf8Write(text: string, offset: number, length: number): number;
}

/**
 * Bytes addressed by a number: the chunk holding address `at` is `chunks[floor(at / CHUNK)]`,
 * starting at address `bases[that]`. A text never straddles two chunks.
 */
export class TextArena {
  /** The address the next text goes to; also the bytes taken so far, gaps at chunk ends included. */
  top = 0;
  private readonly chunks: Buffer[] = [];
  private readonly bases: number[] = [];
  private chunk: Buffer = Buffer.alloc(0);
  private base = 0;
  /** Per chunk (by its first slot): whether its bytes are all ASCII (1, 0 or UNKNOWN). */
  private ascii = new Uint8Array(64);
  /** Per chunk: its bytes as one string, made on the first text() after a write. */
  private readonly strings: (string | undefined)[] = [];
  private sealed = false;
  /** Per chunk: texts read from it since sealing. */
  private reads = new Uint32Array(0);

  /** Length in bytes of what the last copy() or write() appended. */
  appended = 0;

  /** Appends `src[from, to)`; returns its address. */
  copy(src: Uint8Array, from: number, to: number): number {
    const n = to - from;
    this.reserve(n);
    const address = this.top;
    this.put(address, src, from, to);
    this.top = address + n;
    this.appended = n;
    return address;
  }

  /** Writes `src[from, to)` at `address` (a span of at least that many bytes taken earlier). */
  put(address: number, src: Uint8Array, from: number, to: number): void {
    const slot = Math.floor(address / CHUNK);
    const base = this.bases[slot]!;
    const chunk = this.chunks[slot]!;
    const at = address - base;
    // Short values by a loop: set() needs a view of each, which costs more than the copy. The
    // view is a plain Uint8Array: a Buffer's subarray() goes through Buffer's constructor.
    if (to - from <= 32) for (let i = from; i < to; i++) chunk[at + i - from] = src[i]!;
    else chunk.set(new Uint8Array(src.buffer, src.byteOffset + from, to - from), at);
    this.written(base);
  }

  /** Appends `text` as UTF-8; returns its address (its length is then in `appended`). */
  write(text: string): number {
    const room = text.length * 3;
    this.reserve(room);
    const address = this.top;
    const n = (this.chunk as unknown as Utf8Codec).utf8Write(text, address - this.base, room);
    this.written(this.base);
    this.top = address + n;
    this.appended = n;
    return address;
  }

  /** Writes `text` over the `room` bytes at `at` when it fits; returns its length, or -1. */
  overwrite(at: number, room: number, text: string): number {
    const n = Buffer.byteLength(text);
    if (n > room) return -1;
    const slot = Math.floor(at / CHUNK);
    this.written(this.bases[slot]!);
    (this.chunks[slot] as unknown as Utf8Codec).utf8Write(text, at - this.bases[slot]!, n);
    return n;
  }

  /**
   * The text at `at`. In a chunk of ASCII, a slice of the chunk's string: one decoding of the
   * chunk, then no call into C++ per text (those were most of the time of rendering 100,000
   * findings). Strings of a megabyte or more are kept outside the heap by Node. Only once
   * sealed: while findings are being read, chunks are written to between reads.
   */
  text(at: number, length: number): string {
    if (length === 0) return '';
    const slot = Math.floor(at / CHUNK);
    const base = this.bases[slot]!;
    const from = at - base;
    const chunk = this.chunks[slot]!;
    // A chunk is decoded whole once it has been read from often enough to pay for it (md reads a
    // few hundred texts from all over the arena).
    if (this.sealed && chunk !== this.chunk && ++this.reads[base / CHUNK]! > WHOLE_AFTER_READS && this.isAscii(base)) {
      let whole = this.strings[base / CHUNK];
      if (whole === undefined || whole.length < from + length) {
        whole = (chunk as unknown as Latin1Slicing).latin1Slice(0, Math.min(chunk.length, this.top - base));
        this.strings[base / CHUNK] = whole;
      }
      return whole.slice(from, from + length);
    }
    return (chunk as unknown as Utf8Codec).utf8Slice(from, from + length);
  }

  /** Whether the bytes of the chunk at `base` are all ASCII (asked once per chunk and write). */
  private isAscii(base: number): boolean {
    const id = base / CHUNK;
    let known = this.ascii[id]!;
    if (known === UNKNOWN) {
      const chunk = this.chunks[id]!;
      known = isAscii(chunk.subarray(0, Math.min(chunk.length, this.top - base))) ? 1 : 0;
      this.ascii[id] = known;
    }
    return known === 1;
  }

  /** Notes a write to the chunk at `base`: its string and ASCII-ness are out of date. */
  private written(base: number): void {
    const id = base / CHUNK;
    this.ascii[id] = UNKNOWN;
    if (this.strings[id] !== undefined) this.strings[id] = undefined;
  }

  /** Whether the `length` bytes at `at` are `src[from, to)`. */
  equals(at: number, length: number, src: Uint8Array, from: number, to: number): boolean {
    if (to - from !== length) return false;
    if (length === 0) return true;
    const slot = Math.floor(at / CHUNK);
    const chunk = this.chunks[slot]!;
    const start = at - this.bases[slot]!;
    for (let i = 0; i < length; i++) if (chunk[start + i] !== src[from + i]) return false;
    return true;
  }

  /** Ends the chunk being written: what is written next goes to a new one. Call once the text
   *  is all there, so that all of it can be read through chunk strings. */
  seal(): void {
    this.chunk = Buffer.alloc(0);
    this.sealed = true;
    if (this.reads.length < this.chunks.length) this.reads = new Uint32Array(this.chunks.length);
  }

  /** The bytes at `at` as a view (valid until the arena is dropped). */
  view(at: number, length: number): Uint8Array {
    const slot = Math.floor(at / CHUNK);
    const start = at - this.bases[slot]!;
    return this.chunks[slot]!.subarray(start, start + length);
  }

  /** Makes room for `n` bytes at `top`, in a new chunk if the current one has too little. */
  private reserve(n: number): void {
    if (this.top + n <= this.base + this.chunk.length) return;
    const base = Math.ceil(this.top / CHUNK) * CHUNK;
    const slots = Math.max(1, Math.ceil(n / CHUNK));
    const chunk = Buffer.allocUnsafeSlow(slots * CHUNK);
    for (let s = 0; s < slots; s++) {
      this.chunks[base / CHUNK + s] = chunk;
      this.bases[base / CHUNK + s] = base;
    }
    this.chunk = chunk;
    this.base = base;
    this.top = base;
    if (base / CHUNK >= this.ascii.length) {
      const grown = new Uint8Array(Math.max(this.ascii.length * 2, base / CHUNK + 1));
      grown.set(this.ascii);
      this.ascii = grown;
    }
    this.ascii[base / CHUNK] = UNKNOWN;
  }
}
