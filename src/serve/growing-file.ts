// A file that only grows (events.jsonl, findings.jsonl, a transcript), read from where the
// last read stopped: each call returns the new bytes, at most `step` of them per call so a long
// way behind is caught up in bounded pieces (the caller reads again while `behind`).
import { readRange } from './file-range.js';

export class GrowingFile {
  offset = 0;
  behind = false;

  constructor(
    readonly path: string,
    private readonly step = 1024 * 1024,
  ) {}

  /** New bytes since the last call. */
  read(): Buffer {
    const r = readRange(this.path, this.offset, this.step);
    if (r.size < this.offset) this.offset = 0; // replaced by a shorter file
    this.offset = r.start + r.bytes.length;
    this.behind = this.offset < r.size;
    return r.bytes;
  }

  /** Starts at the last `bytes` of the file (a transcript's tail), returning them. */
  readTail(bytes: number): { bytes: Buffer; skipped: number } {
    const r = readRange(this.path, 0, bytes, true);
    this.offset = r.start + r.bytes.length;
    this.behind = this.offset < r.size;
    return { bytes: r.bytes, skipped: r.start };
  }
}

/** Whole lines from a growing file; a torn last line waits for its end. Lines over `maxLine` are dropped. */
export class LineFollower {
  private readonly file: GrowingFile;
  private partial = '';
  private dropping = false;

  constructor(
    path: string,
    private readonly maxLine = 1024 * 1024,
  ) {
    this.file = new GrowingFile(path);
  }

  /** Every whole line that arrived since the last call. */
  readLines(): string[] {
    const out: string[] = [];
    do {
      const text = this.file.read().toString('utf8');
      if (text === '') break;
      const parts = (this.partial + text).split('\n');
      this.partial = parts.pop() ?? '';
      for (const p of parts) {
        if (this.dropping) this.dropping = false;
        else out.push(p);
      }
      if (this.partial.length > this.maxLine) {
        this.partial = '';
        this.dropping = true;
      }
    } while (this.file.behind);
    return out;
  }
}
