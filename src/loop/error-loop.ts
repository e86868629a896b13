// An agent stuck repeating one failing tool call burns money all night. The same tool error,
// normalised so that line numbers, paths and ids do not make it look new, three times → stop.

export function normaliseToolError(text: string): string {
  return text
    .slice(0, 2_000)
    .toLowerCase()
    .replace(/0x[0-9a-f]+/g, '#')
    .replace(/\b[0-9a-f]{7,}\b/g, '#')
    .replace(/(?:[a-z]:)?(?:[\\/][\w.@~-]+)+/g, '<path>')
    .replace(/\d+/g, '#')
    .replace(/\s+/g, ' ')
    .trim();
}

export class ErrorLoopDetector {
  private last: string | undefined;
  private count = 0;

  constructor(private readonly limit = 3) {}

  /** Returns the normalised error when it has now been seen `limit` times in a row. */
  record(error: string): string | undefined {
    const key = normaliseToolError(error);
    if (key === this.last) this.count++;
    else {
      this.last = key;
      this.count = 1;
    }
    return this.count >= this.limit ? key : undefined;
  }

  /** A tool call that succeeded breaks the run of errors. */
  success(): void {
    this.last = undefined;
    this.count = 0;
  }
}
