// Some agents print the prompt they were given before they answer (Codex in text mode echoes it to
// stderr). ralph's own prompt holds example signals and an `<observation>` example inside a code
// fence: read as the agent's words, they would become bogus findings and open fences that never
// close. This filter recognises the echo — the prompt's first line, then its following lines in
// order — and hands those lines back as log-only, so they are kept in the transcript but never
// parsed (docs/agents.md). A line is held only while it can still be the prompt line expected
// next; anything else passes on at once, so half lines still stream.

const MAX_HELD = 64 * 1024;

export type Piece = { kind: 'text' | 'log'; chunk: Buffer };

export class EchoFilter {
  private readonly lines: string[];
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
  }

  push(chunk: Buffer): Piece[] {
    const out: Piece[] = [];
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(0x0a, start);
      const end = nl === -1 ? chunk.length : nl + 1;
      const piece = chunk.subarray(start, end);
      if (this.passing) out.push({ kind: 'text', chunk: piece });
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
    const partial = Buffer.concat(this.held, this.heldBytes).toString('utf8').trimStart();
    return partial === '' || expected.startsWith(partial.trimEnd()) || partial.trimEnd() === '';
  }

  /** The held start of a line is the agent's: hand it on, and the rest of the line with it. */
  private release(out: Piece[]): void {
    out.push({ kind: 'text', chunk: Buffer.concat(this.held, this.heldBytes) });
    this.held = [];
    this.heldBytes = 0;
    this.passing = true;
    this.next = -1;
  }

  private finishLine(out: Piece[]): void {
    const line = Buffer.concat(this.held, this.heldBytes);
    this.held = [];
    this.heldBytes = 0;
    out.push({ kind: this.isEcho(line.toString('utf8').trim()) ? 'log' : 'text', chunk: line });
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
