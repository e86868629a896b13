// Splits a byte stream into lines for the JSON stream formats. A line is held only until its end
// arrives, and never beyond `maxLineBytes`: a longer one is dropped (its bytes counted, not kept),
// so memory stays flat whatever the agent writes.

export type SplitItem =
  /** A whole line, its line end included (LF; a CR before it stays in the bytes). */
  | { kind: 'line'; bytes: Buffer }
  /** A line longer than the limit was dropped; `bytes` is its full length. */
  | { kind: 'dropped'; bytes: number };

const LF = 0x0a;

export class LineSplitter {
  private parts: Buffer[] = [];
  private held = 0;
  /** Length of the line being dropped, or -1 when not dropping. */
  private dropping = -1;

  constructor(private readonly maxLineBytes: number) {}

  /** True when part of a line is waiting for its end. */
  get pending(): boolean {
    return this.held > 0 || this.dropping >= 0;
  }

  push(chunk: Buffer): SplitItem[] {
    const out: SplitItem[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(LF, start);
      const end = nl === -1 ? chunk.length : nl + 1;
      this.take(chunk.subarray(start, end));
      if (nl !== -1) this.finishLine(out);
      start = end;
    }
    return out;
  }

  /** The last line, when the stream ended without a line end. */
  end(): SplitItem[] {
    const out: SplitItem[] = [];
    if (this.pending) this.finishLine(out);
    return out;
  }

  private take(piece: Buffer): void {
    if (this.dropping >= 0) {
      this.dropping += piece.length;
      return;
    }
    if (this.held + piece.length > this.maxLineBytes) {
      this.dropping = this.held + piece.length;
      this.parts = [];
      this.held = 0;
      return;
    }
    this.parts.push(piece);
    this.held += piece.length;
  }

  private finishLine(out: SplitItem[]): void {
    if (this.dropping >= 0) {
      out.push({ kind: 'dropped', bytes: this.dropping });
      this.dropping = -1;
      return;
    }
    const parts = this.parts;
    // One part (the usual case): a view into the chunk, no copy.
    const bytes = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, this.held);
    this.parts = [];
    this.held = 0;
    if (bytes.length > 0) out.push({ kind: 'line', bytes });
  }
}
