// Finds the next occurrence of a fixed byte string in one buffer, line after line, scanning each
// byte at most once per buffer: a search that found nothing is not repeated for later lines.

export class NeedleCursor {
  private buf: Uint8Array | undefined;
  private at = -1;

  constructor(
    private readonly needle: Buffer,
    private readonly search: (buf: Buffer, from: number) => number = (buf, from) => buf.indexOf(needle, from),
  ) {}

  /** Index of the needle in [start, end) of `buf`, or -1. Calls must move forward through `buf`. */
  find(buf: Buffer, start: number, end: number): number {
    if (buf !== this.buf || (this.at !== -1 && this.at < start)) {
      this.buf = buf;
      this.at = this.search(buf, start);
    }
    return this.at !== -1 && this.at + this.needle.length <= end ? this.at : -1;
  }

  forget(): void {
    this.buf = undefined;
  }
}

/**
 * A search for `needle` that looks for its first byte natively and compares the rest in place:
 * faster than a native search for the whole needle when that byte is rare.
 */
export function byFirstByte(needle: Buffer): (buf: Buffer, from: number) => number {
  const n = needle.length;
  const first = needle[0]!;
  return (buf, from) => {
    let i = buf.indexOf(first, from);
    while (i !== -1) {
      let k = 1;
      while (k < n && buf[i + k] === needle[k]) k++;
      if (k === n) return i;
      i = buf.indexOf(first, i + 1);
    }
    return -1;
  };
}
