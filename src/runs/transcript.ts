// iterations/<n>.log: the executor's raw output, appended as it arrives, capped (docs/hostile.md
// "Transcript cap"). Past `maxBytes`, the first half is kept as written and the last half in a
// ring file beside it (no memory grows); when the iteration ends the ring is appended in order,
// after a line that says how much was dropped. A write that fails (a full disk) stops writing
// and is reported, never thrown at the stream that feeds it.
//
// Output is written in chunks, not a write(2) per piece the executor hands over (a JSON stream
// format hands over one a line): pieces are gathered up to FLUSH_BYTES and written when that is
// full and at the end of the event loop's turn in which they came (setImmediate), so the file is
// never more than one turn behind what ralph has read, and a ralph killed by SIGKILL leaves a
// log that holds the output, whole and in order, up to its last flush (docs/files.md#transcripts).
import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/** Output gathered before one write. */
const FLUSH_BYTES = 64 * 1024;

export interface TranscriptSummary {
  /** Bytes the executor produced in the iteration. */
  totalBytes: number;
  /** Bytes that are not in the log (between its head and its tail). */
  droppedBytes: number;
  maxBytes: number;
}

export class Transcript {
  private fd: number;
  private ringFd = -1;
  private readonly ringPath: string;
  private readonly headBytes: number;
  private readonly tailBytes: number;
  /** Everything the executor wrote, kept or not. */
  total = 0;
  /** Bytes handed to the file (head and ring); the rest of `total` is in `pending`. */
  private written = 0;
  private readonly pending = Buffer.allocUnsafe(FLUSH_BYTES);
  private pendingBytes = 0;
  private flushSoon: NodeJS.Immediate | undefined;
  /** The first write error (ENOSPC, EDQUOT, EIO…); nothing is written after it. */
  error: NodeJS.ErrnoException | undefined;

  constructor(
    readonly path: string,
    private readonly maxBytes = Infinity,
  ) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'a');
    this.ringPath = `${path}.tail`;
    this.headBytes = Number.isFinite(maxBytes) ? Math.floor(maxBytes / 2) : Infinity;
    this.tailBytes = Number.isFinite(maxBytes) ? maxBytes - this.headBytes : 0;
  }

  write(chunk: Buffer | string): void {
    if (this.fd < 0 || this.error) return;
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    this.total += buf.length;
    if (this.pendingBytes + buf.length > FLUSH_BYTES) this.flush();
    if (buf.length >= FLUSH_BYTES) this.writeOut(buf);
    else {
      buf.copy(this.pending, this.pendingBytes);
      this.pendingBytes += buf.length;
      this.flushSoon ??= setImmediate(() => {
        this.flushSoon = undefined;
        this.flush();
      });
    }
  }

  /** Writes what is gathered; an error is kept in `error`, never thrown. */
  flush(): void {
    if (this.pendingBytes === 0) return;
    const data = this.pending.subarray(0, this.pendingBytes);
    this.pendingBytes = 0;
    this.writeOut(data);
  }

  private writeOut(buf: Buffer): void {
    if (this.fd < 0 || this.error) return;
    try {
      const before = this.written;
      this.written += buf.length;
      const inHead = Math.max(0, Math.min(buf.length, this.headBytes - before));
      if (inHead > 0) writeAll(this.fd, buf.subarray(0, inHead), null);
      if (inHead < buf.length) this.toRing(buf.subarray(inHead), before + inHead - this.headBytes);
    } catch (error) {
      this.error = error as NodeJS.ErrnoException;
    }
  }

  /** `data` starts at offset `at` of the output past the head. */
  private toRing(data: Buffer, at: number): void {
    if (this.ringFd < 0) this.ringFd = openSync(this.ringPath, 'w+');
    // Only the last tailBytes of what arrives can survive: skip the rest.
    const skip = Math.max(0, data.length - this.tailBytes);
    let pos = (at + skip) % this.tailBytes;
    let rest = data.subarray(skip);
    while (rest.length > 0) {
      const n = Math.min(rest.length, this.tailBytes - pos);
      writeAll(this.ringFd, rest.subarray(0, n), pos);
      rest = rest.subarray(n);
      pos = (pos + n) % this.tailBytes;
    }
  }

  /** Finishes the log (the note and the tail, in order) and says what was kept. */
  close(): TranscriptSummary {
    this.flush();
    if (this.flushSoon !== undefined) clearImmediate(this.flushSoon);
    this.flushSoon = undefined;
    const past = Math.max(0, this.total - this.headBytes);
    const dropped = Math.max(0, past - this.tailBytes);
    if (this.fd >= 0) {
      try {
        if (this.ringFd >= 0 && !this.error) {
          if (dropped > 0) {
            writeAll(this.fd, Buffer.from(`\n[ralph: ${dropped} bytes of output dropped here: this log keeps the first ${this.headBytes} and the last ${this.tailBytes} bytes of the iteration's ${this.total} (--max-log ${this.maxBytes})]\n`), null);
          }
          const kept = Math.min(past, this.tailBytes);
          const start = dropped > 0 ? past % this.tailBytes : 0;
          copyRange(this.ringFd, this.fd, start, Math.min(kept, this.tailBytes - start));
          if (start > 0) copyRange(this.ringFd, this.fd, 0, kept - (this.tailBytes - start));
        }
      } catch (error) {
        this.error ??= error as NodeJS.ErrnoException;
      }
      closeSync(this.fd);
    }
    if (this.ringFd >= 0) {
      closeSync(this.ringFd);
      rmSync(this.ringPath, { force: true });
    }
    this.fd = -1;
    this.ringFd = -1;
    return { totalBytes: this.total, droppedBytes: dropped, maxBytes: this.maxBytes };
  }
}

function writeAll(fd: number, data: Buffer, position: number | null): void {
  let done = 0;
  while (done < data.length) {
    done += writeSync(fd, data, done, data.length - done, position === null ? null : position + done);
  }
}

function copyRange(from: number, to: number, start: number, length: number): void {
  const buf = Buffer.alloc(Math.min(length, 1024 * 1024));
  let off = 0;
  while (off < length) {
    const n = readSync(from, buf, 0, Math.min(buf.length, length - off), start + off);
    if (n === 0) break;
    writeAll(to, buf.subarray(0, n), null);
    off += n;
  }
}
