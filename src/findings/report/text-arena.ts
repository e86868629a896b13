// The findings' text as UTF-8 bytes outside the JavaScript heap.
//
// Why: a report keeps the text of every distinct finding (tens of MB for 100,000 findings) while
// it reads the rest of the logs. As strings, the young-generation collector copied all of it,
// and the objects around it, at every collection until it was promoted, and the old generation
// then marked it again: that was a third of `ralph report`'s time. Bytes in a ReportMemory are
// never traced or moved; strings are made of them only for the findings a format needs as text.
import type { ReportMemory } from './report-memory.js';

/**
 * Text appended from `base` upwards in a ReportMemory, addressed by where it starts there. The
 * memory above `top` is free: a writer (ByteOutput) may use it once nothing more is appended.
 */
export class TextArena {
  /** The address the next text goes to. */
  top: number;
  /** Length in bytes of what the last copy() or write() appended. */
  appended = 0;

  constructor(
    readonly memory: ReportMemory,
    readonly base: number,
  ) {
    this.top = base;
  }

  /** Appends the `length` bytes at `src` (elsewhere in the same memory); returns their address. */
  copy(src: number, length: number): number {
    const address = this.top;
    this.memory.ensure(address + length);
    this.memory.copy(address, src, length);
    this.top = address + length;
    this.appended = length;
    return address;
  }

  /** Appends `text` as UTF-8; returns its address (its length is then in `appended`). */
  write(text: string): number {
    const address = this.top;
    const room = text.length * 3;
    this.memory.ensure(address + room);
    const n = this.memory.u8.utf8Write(text, address, room);
    this.top = address + n;
    this.appended = n;
    return address;
  }

  /** Writes the `length` bytes at `src` over those at `address` (a span at least that long). */
  put(address: number, src: number, length: number): void {
    this.memory.copy(address, src, length);
  }

  /** Writes `text` over the `room` bytes at `address` when it fits; returns its length, or -1. */
  overwrite(address: number, room: number, text: string): number {
    const n = Buffer.byteLength(text);
    if (n > room) return -1;
    this.memory.u8.utf8Write(text, address, n);
    return n;
  }

  text(address: number, length: number): string {
    return length === 0 ? '' : this.memory.u8.utf8Slice(address, address + length);
  }

  /** Whether the `length` bytes at `a` are the `bLength` bytes at `b`. */
  equals(a: number, length: number, b: number, bLength: number): boolean {
    if (length !== bLength) return false;
    const u8 = this.memory.u8;
    for (let i = 0; i < length; i++) if (u8[a + i] !== u8[b + i]) return false;
    return true;
  }

  /**
   * Keeps only the spans that `each` hands to `keep` (an address and a length each; keep answers
   * the span's new address), one after another from `base`; what is appended next follows them.
   */
  compact(each: (keep: (address: number, length: number) => number) => void): void {
    const u8 = this.memory.u8;
    const kept = Buffer.allocUnsafe(this.top - this.base);
    let at = 0;
    each((address, length) => {
      u8.copy(kept, at, address, address + length);
      at += length;
      return this.base + at - length;
    });
    kept.copy(this.memory.u8, this.base, 0, at);
    this.top = this.base + at;
  }
}
