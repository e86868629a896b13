// Reads a file line by line in chunks, with bounded memory: a findings log can be a gigabyte, and
// one runaway line must not be held whole either. See docs/report.md.
import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Longest line kept, in characters (UTF-16 code units). */
export const DEFAULT_MAX_LINE_CHARS = 16 * 1024 * 1024;
const CHUNK_BYTES = 1 << 20;
/** One read buffer for every file: a report reads hundreds of small logs, and a fresh megabyte
 *  each (memory outside the heap) made V8 collect garbage for the pressure. Safe to share:
 *  forEachLine is synchronous and done with it before it returns. */
let shared: Buffer | undefined;

export interface LineHandlers {
  /** A line without its line end (LF or CRLF); a byte order mark before the first one dropped. */
  line(text: string, lineNumber: number): void;
  /** A line longer than the limit: its characters were counted and dropped. */
  tooLong(lineNumber: number, chars: number): void;
}

/**
 * Calls the handlers for every line of the file. Synchronous: nothing else runs while a report
 * is built, and a chain of async reads per log cost more than parsing it.
 */
export function forEachLine(path: string, handlers: LineHandlers, maxLineChars = DEFAULT_MAX_LINE_CHARS): void {
  const fd = openSync(path, 'r');
  try {
    const buffer = (shared ??= Buffer.allocUnsafe(CHUNK_BYTES));
    // Keeps a character split across two chunks whole.
    const decoder = new StringDecoder('utf8');
    const lines = lineSplitter(handlers, maxLineChars);
    for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer)) lines.feed(decoder.write(buffer.subarray(0, n)));
    lines.feed(decoder.end());
    lines.end();
  } finally {
    closeSync(fd);
  }
}

/** Splits text, fed in any pieces, into lines. */
function lineSplitter(handlers: LineHandlers, maxLineChars: number): { feed(text: string): void; end(): void } {
  // The start of a line that spans pieces; once it is over the limit, only its length.
  let carry = '';
  let dropped = -1;
  let lineNumber = 0;

  const finish = (last: string): void => {
    lineNumber += 1;
    const chars = dropped >= 0 ? dropped + last.length : carry.length + last.length;
    if (chars > maxLineChars) handlers.tooLong(lineNumber, chars);
    else {
      let text = carry === '' ? last : carry + last;
      if (text.charCodeAt(text.length - 1) === 13) text = text.slice(0, -1);
      if (lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      handlers.line(text, lineNumber);
    }
    carry = '';
    dropped = -1;
  };

  return {
    feed(text) {
      let start = 0;
      for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', start)) {
        finish(text.slice(start, nl));
        start = nl + 1;
      }
      const rest = text.length - start;
      if (rest === 0) return;
      if (dropped >= 0) dropped += rest;
      else if (carry.length + rest > maxLineChars) {
        dropped = carry.length + rest;
        carry = '';
      } else carry += text.slice(start);
    },
    end() {
      if (dropped >= 0 || carry !== '') finish('');
    },
  };
}
