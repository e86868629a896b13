// Tool output goes into the model's context and the transcript, so it is bounded: the head and the
// tail are kept (the start says what ran, the end says how it ended) and the middle is counted and
// replaced by a note. Memory stays bounded however much a command prints.

export const DEFAULT_OUTPUT_LIMIT = 30_000;

export class BoundedOutput {
  private head = '';
  private tail = '';
  private dropped = 0;
  private readonly headLimit: number;
  private readonly tailLimit: number;

  constructor(limit = DEFAULT_OUTPUT_LIMIT) {
    this.headLimit = Math.ceil(limit / 2);
    this.tailLimit = Math.floor(limit / 2);
  }

  append(text: string): void {
    if (text.length === 0) return;
    if (this.dropped === 0 && this.tail.length === 0 && this.head.length + text.length <= this.headLimit) {
      this.head += text;
      return;
    }
    if (this.head.length < this.headLimit) {
      const room = this.headLimit - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    const joined = this.tail + text;
    if (joined.length > this.tailLimit) {
      this.dropped += joined.length - this.tailLimit;
      this.tail = joined.slice(joined.length - this.tailLimit);
    } else {
      this.tail = joined;
    }
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  toString(): string {
    if (this.dropped === 0) return this.head + this.tail;
    return (
      `${this.head}\n[... output truncated: ${this.dropped} characters omitted; ` +
      `redirect to a file and view parts of it to see more ...]\n${this.tail}`
    );
  }
}

/** One bounded string: for results that are built whole (a file view). */
export function boundText(text: string, limit = DEFAULT_OUTPUT_LIMIT): string {
  if (text.length <= limit) return text;
  const out = new BoundedOutput(limit);
  out.append(text);
  return out.toString();
}
