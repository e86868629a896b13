// Reading part of a file that grows (events.jsonl, a transcript): from an offset or its tail, at
// most a bound of bytes at a time, so a reader that fell far behind never reads the gap into
// memory (`ralph serve`'s feeds, `ralph status`'s last event). An agent can reach the run
// directory: anything but a regular file (a FIFO planted in place of a log) reads as empty
// instead of hanging the reader.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';

export interface Range {
  bytes: Buffer;
  /** The file's size when read. */
  size: number;
  /** Where the bytes start (past `from` when the reader was skipped ahead to the last `max`). */
  start: number;
}

/** Bytes from `from` on, at most `max`; with `tail`, the last `max` bytes when more are waiting. */
export function readRange(path: string, from: number, max: number, tail = false): Range {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return { bytes: Buffer.alloc(0), size: 0, start: from };
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return { bytes: Buffer.alloc(0), size: 0, start: from };
    // A file rewritten shorter (never by ralph, but by hand) is read again from its start.
    const begin = from > info.size ? 0 : from;
    const start = tail ? Math.max(begin, info.size - max) : begin;
    const take = Math.max(0, Math.min(max, info.size - start));
    const bytes = Buffer.alloc(take);
    let got = 0;
    while (got < take) {
      const n = readSync(fd, bytes, got, take - got, start + got);
      if (n === 0) break;
      got += n;
    }
    return { bytes: bytes.subarray(0, got), size: info.size, start };
  } catch {
    return { bytes: Buffer.alloc(0), size: 0, start: from };
  } finally {
    closeSync(fd);
  }
}
