// A file that only grows (events.jsonl, findings.jsonl, a transcript), read from where the
// last read stopped: each call returns the new bytes, at most `step` of them per call so a long
// way behind is caught up in bounded pieces (the caller reads again while `behind`).
import { LineSplitter } from '../executors/command/line-splitter.js';
import { readRange } from '../util/file-range.js';

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

/**
 * Whole lines from a growing file; a torn last line waits for its end. Lines over `maxLine` bytes
 * are dropped. Lines are cut as bytes and decoded whole, so a character split across two reads
 * arrives intact.
 */
export class LineFollower {
  private readonly file: GrowingFile;
  private readonly lines: LineSplitter;

  constructor(path: string, maxLine = 1024 * 1024, step?: number) {
    this.file = new GrowingFile(path, step);
    this.lines = new LineSplitter(maxLine);
  }

  /** Every whole line that arrived since the last call. */
  readLines(): string[] {
    const out: string[] = [];
    do {
      const bytes = this.file.read();
      if (bytes.length === 0) break;
      for (const item of this.lines.push(bytes)) {
        if (item.kind === 'line') out.push(item.bytes.toString('utf8', 0, item.bytes.length - 1));
      }
    } while (this.file.behind);
    return out;
  }
}
