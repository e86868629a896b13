// CommonMark fenced code blocks, line by line: a line of at least three backticks or tildes,
// indented at most 3 spaces, opens one; only a line of the same character, at least as long and
// with nothing after it, closes it; an unclosed fence runs to the end. Checkboxes, headings and
// tags inside a fence are examples, not the real thing.

const OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;
const OPEN_ANY_INDENT = /^[ \t]*(`{3,}|~{3,})(.*)$/;
const CLOSE_ANY_INDENT = /^[ \t]*(`{3,}|~{3,})[ \t]*$/;

export class FenceTracker {
  private marker: string | undefined;
  private readonly open: RegExp;
  private readonly close: RegExp;

  /**
   * `anyIndent`: also take deeper-indented fences, as found inside the indented text of a
   * `<task>` element, where CommonMark would see an indented code block instead.
   */
  constructor(anyIndent = false) {
    this.open = anyIndent ? OPEN_ANY_INDENT : OPEN;
    this.close = anyIndent ? CLOSE_ANY_INDENT : CLOSE;
  }

  /** Feeds the next line (without its line end); true when the line belongs to a fence, delimiters included. */
  step(line: string): boolean {
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (this.marker !== undefined) {
      const m = this.close.exec(line);
      if (m && m[1]![0] === this.marker[0] && m[1]!.length >= this.marker.length) this.marker = undefined;
      return true;
    }
    const m = this.open.exec(line);
    // A backtick fence's info string may not contain a backtick (that is inline code instead).
    if (m && !(m[1]![0] === '`' && m[2]!.includes('`'))) {
      this.marker = m[1]!;
      return true;
    }
    return false;
  }
}

/** Each line of `text` with whether it sits inside a fenced code block. */
export function* linesWithFences(text: string): Generator<{ line: string; index: number; fenced: boolean }> {
  const fences = new FenceTracker();
  let index = 0;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    yield { line, index, fenced: fences.step(line) };
    index++;
  }
}
