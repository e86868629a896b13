// Some agents print the prompt they were given before they answer (Codex in text mode echoes it to
// stderr). ralph's own prompt holds example signals and an `<observation>` example inside a code
// fence: read as the agent's words, they would become bogus findings and open fences that never
// close. This filter recognises the echo — the prompt's first line, then its following lines in
// order — and hands those lines back as log-only, so they are kept in the transcript but never
// parsed (docs/agents.md). A line is held only while it can still be the prompt line expected
// next; anything else passes on at once, so half lines still stream. Outside an echo only a line
// holding the prompt's first line can start one, so the lines before it pass on as one piece:
// an agent's output stays in chunks, not one piece (and one transcript write) a line.

const MAX_HELD = 64 * 1024;
const LF = 0x0a;

export type Piece = { kind: 'text' | 'log'; chunk: Buffer };

export class EchoFilter {
  private readonly lines: string[];
  /** The prompt's first line, as the bytes any line that starts an echo contains. */
  private readonly first: Buffer | undefined;
  /** Index of the prompt line expected next while an echo is being read; -1 when not in one. */
  private next = -1;
  private held: Buffer[] = [];
  private heldBytes = 0;
  /** The rest of the current line is the agent's: pass it on without holding. */
  private passing = false;

  constructor(prompt: string) {
    this.lines = prompt
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '');
    this.first = this.lines[0] === undefined ? undefined : Buffer.from(this.lines[0]);
  }

  push(chunk: Buffer): Piece[] {
    const out: Piece[] = [];
    let start = 0;
    while (start < chunk.length) {
      if (!this.passing && this.heldBytes === 0 && this.next < 0) {
        // At a line start outside an echo: every whole line before the next one that holds the
        // prompt's first line is the agent's.
        const at = this.first === undefined ? -1 : chunk.indexOf(this.first, start);
        const lineStart = Math.max(start, chunk.lastIndexOf(LF, at === -1 ? chunk.length - 1 : at) + 1);
        if (lineStart > start) add(out, 'text', chunk.subarray(start, lineStart));
        start = lineStart;
        if (start === chunk.length) break;
      }
      const nl = chunk.indexOf(LF, start);
      const end = nl === -1 ? chunk.length : nl + 1;
      const piece = chunk.subarray(start, end);
      if (this.passing) add(out, 'text', piece);
      else {
        this.held.push(piece);
        this.heldBytes += piece.length;
        if (nl !== -1) this.finishLine(out);
        else if (!this.couldBeEcho()) this.release(out);
      }
      if (nl !== -1) this.passing = false;
      start = end;
    }
    return out;
  }

  end(): Piece[] {
    const out: Piece[] = [];
    if (this.heldBytes > 0) this.finishLine(out);
    this.passing = false;
    return out;
  }

  /** The prompt line an echo would show next. */
  private expected(): string | undefined {
    return this.next >= 0 ? this.lines[this.next] : this.lines[0];
  }

  private couldBeEcho(): boolean {
    if (this.heldBytes > MAX_HELD) return false;
    const expected = this.expected();
    if (expected === undefined) return false;
    const partial = this.heldLine().toString('utf8').trimStart();
    return partial === '' || expected.startsWith(partial.trimEnd()) || partial.trimEnd() === '';
  }

  /** What is held of the current line, in one piece (a view, when it came in one). */
  private heldLine(): Buffer {
    return this.held.length === 1 ? (this.held[0] as Buffer) : Buffer.concat(this.held, this.heldBytes);
  }

  /** The held start of a line is the agent's: hand it on, and the rest of the line with it. */
  private release(out: Piece[]): void {
    add(out, 'text', this.heldLine());
    this.held = [];
    this.heldBytes = 0;
    this.passing = true;
    this.next = -1;
  }

  private finishLine(out: Piece[]): void {
    const line = this.heldLine();
    this.held = [];
    this.heldBytes = 0;
    add(out, this.isEcho(line.toString('utf8').trim()) ? 'log' : 'text', line);
  }

  private isEcho(line: string): boolean {
    if (this.lines.length === 0) return false;
    if (this.next >= 0) {
      if (line === '') return true; // blank lines inside the echo
      if (line === this.lines[this.next]) {
        this.next++;
        if (this.next >= this.lines.length) this.next = -1;
        return true;
      }
      this.next = -1;
    }
    if (line !== '' && line === this.lines[0]) {
      this.next = this.lines.length > 1 ? 1 : -1;
      return true;
    }
    return false;
  }
}

/** Appends a piece, joined to the last one when both are of one kind and adjacent in memory. */
function add(out: Piece[], kind: Piece['kind'], chunk: Buffer): void {
  const last = out[out.length - 1];
  if (last !== undefined && last.kind === kind && last.chunk.buffer === chunk.buffer && last.chunk.byteOffset + last.chunk.length === chunk.byteOffset) {
    last.chunk = Buffer.from(chunk.buffer, last.chunk.byteOffset, last.chunk.length + chunk.length);
  } else out.push({ kind, chunk });
}
