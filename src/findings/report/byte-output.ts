// A report's findings assembled as UTF-8 bytes, for the findings whose text was read as bytes and
// needs no escaping: copied where it is kept (text-arena.ts) to the output in the same memory,
// never made into strings to be joined, flattened and encoded again on the way out.
import type { CodecBuffer, ReportMemory } from './report-memory.js';

/** Text written many times: kept once in the memory, then copied (see ByteOutput.piece). */
export interface Piece {
  readonly text: string;
  /** Where it is kept, or -1 when there was no room left (then it is encoded each time). */
  readonly at: number;
  readonly length: number;
}

/** Room for pieces, below the output. */
const PIECE_BYTES = 1 << 20;

/**
 * Writes at `start` and above in a memory nothing else uses there (above a TextArena that is no
 * longer added to): pieces first, in a room of their own, then the output.
 */
export class ByteOutput {
  private pos: number;
  private readonly outStart: number;
  private pieceAt: number;
  /** The memory's view, kept: read again when it has grown (a stale view has length 0). */
  private u8: CodecBuffer;

  constructor(
    private readonly memory: ReportMemory,
    start: number,
  ) {
    this.pieceAt = start;
    this.outStart = start + PIECE_BYTES;
    this.pos = this.outStart;
    memory.ensure(this.outStart);
    this.u8 = memory.u8;
  }

  get length(): number {
    return this.pos - this.outStart;
  }

  /**
   * `text` kept for writing again and again by put(): one memmove each time, where encoding it
   * (even a loop over its characters) costs several times that.
   */
  piece(text: string): Piece {
    const room = this.outStart - this.pieceAt;
    if (text.length * 3 > room && Buffer.byteLength(text) > room) return { text, at: -1, length: 0 };
    if (this.u8.length === 0) this.u8 = this.memory.u8;
    const at = this.pieceAt;
    const length = this.u8.utf8Write(text, at, room);
    this.pieceAt = at + length;
    return { text, at, length };
  }

  put(piece: Piece): void {
    if (piece.at >= 0) this.copy(piece.at, piece.length);
    else this.utf8(piece.text);
  }

  /** Text known to be ASCII (digits, JSON punctuation). */
  ascii(text: string): void {
    const n = text.length;
    const pos = this.pos;
    if (pos + n > this.u8.length) this.room(n);
    const u8 = this.u8;
    for (let i = 0; i < n; i++) u8[pos + i] = text.charCodeAt(i);
    this.pos = pos + n;
  }

  /** Any text, encoded. */
  utf8(text: string): void {
    if (this.pos + text.length * 3 > this.u8.length) this.room(text.length * 3);
    this.pos += this.u8.utf8Write(text, this.pos, text.length * 3);
  }

  /** The `length` bytes at `address` in the same memory. */
  copy(address: number, length: number): void {
    const pos = this.pos;
    if (pos + length > this.u8.length) this.room(length);
    this.memory.copy(pos, address, length);
    this.pos = pos + length;
  }

  /**
   * The output so far, as a view of the memory that is valid until the next write: the output
   * starts empty again (the pieces stay). Copying each chunk out cost a tenth of the writing.
   */
  take(): Uint8Array {
    const out = new Uint8Array(this.memory.u8.buffer, this.outStart, this.pos - this.outStart);
    this.pos = this.outStart;
    return out;
  }

  private room(n: number): void {
    this.memory.ensure(this.pos + n);
    this.u8 = this.memory.u8;
  }
}

/**
 * A piece of a report as written out: text, or UTF-8 bytes that end where a character does. Bytes
 * are a view that the next piece may overwrite: use (or copy) each before asking for the next.
 */
export type Chunk = string | Uint8Array;

export function chunkText(chunk: Chunk): string {
  return typeof chunk === 'string' ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8');
}

export function joinChunks(chunks: Iterable<Chunk>): string {
  return Array.from(chunks, chunkText).join('');
}
