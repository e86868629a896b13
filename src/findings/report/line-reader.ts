// Streams a file line by line with bounded memory: a findings log can be a gigabyte, and one
// runaway line must not be held whole either. Chunks are decoded once (StringDecoder keeps
// characters split across chunks intact) and lines are sliced out of the decoded text, which is
// far cheaper than a Buffer view per line.
import { createReadStream } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

/** Longest line kept, in characters (UTF-16 code units). */
export const DEFAULT_MAX_LINE_CHARS = 16 * 1024 * 1024;

export interface LineHandlers {
  line(text: string, lineNumber: number): void;
  /** A line longer than the limit: its characters were counted and dropped. */
  tooLong(lineNumber: number, chars: number): void;
}

export interface LineSplitter {
  feed(text: string): void;
  end(): void;
}

/** Splits decoded text, fed in any pieces, into lines; LF or CRLF, a leading BOM dropped. */
export function createLineSplitter(handlers: LineHandlers, maxLineChars = DEFAULT_MAX_LINE_CHARS): LineSplitter {
  // The start of a line that spans pieces.
  let carry = '';
  let dropping = false;
  let dropped = 0;
  let lineNumber = 0;

  const finish = (last: string): void => {
    lineNumber += 1;
    if (dropping || carry.length + last.length > maxLineChars) {
      handlers.tooLong(lineNumber, dropped + carry.length + last.length);
      dropping = false;
      dropped = 0;
      carry = '';
      return;
    }
    const text = carry === '' ? last : carry + last;
    carry = '';
    deliverLine(text, lineNumber, handlers, maxLineChars);
  };

  const hold = (piece: string): void => {
    if (dropping) {
      dropped += piece.length;
    } else if (carry.length + piece.length > maxLineChars) {
      dropping = true;
      dropped = carry.length + piece.length;
      carry = '';
    } else {
      carry += piece;
    }
  };

  return {
    feed(text) {
      let start = 0;
      for (;;) {
        const nl = text.indexOf('\n', start);
        if (nl === -1) {
          if (start < text.length) hold(text.slice(start));
          return;
        }
        finish(text.slice(start, nl));
        start = nl + 1;
      }
    },
    end() {
      if (dropping || carry !== '') finish('');
    },
  };
}

/**
 * One whole line, its '\n' already cut off: counted as too long, or given to the handler without
 * a trailing CR (and, on the first line, without a byte order mark).
 */
export function deliverLine(line: string, lineNumber: number, handlers: LineHandlers, maxLineChars = DEFAULT_MAX_LINE_CHARS): void {
  if (line.length > maxLineChars) {
    handlers.tooLong(lineNumber, line.length);
    return;
  }
  let text = line;
  if (text.charCodeAt(text.length - 1) === 13) text = text.slice(0, -1);
  if (lineNumber === 1 && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  handlers.line(text, lineNumber);
}

/** Streams the file: memory stays bounded by the read size and the line limit. */
export async function forEachLine(path: string, handlers: LineHandlers, maxLineChars = DEFAULT_MAX_LINE_CHARS): Promise<void> {
  const decoder = new StringDecoder('utf8');
  const lines = createLineSplitter(handlers, maxLineChars);
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) lines.feed(decoder.write(chunk));
  lines.feed(decoder.end());
  lines.end();
}

/** The same over a file already in memory (small files, read ahead in one go). */
export function forEachLineIn(text: string, handlers: LineHandlers, maxLineChars = DEFAULT_MAX_LINE_CHARS): void {
  const lines = createLineSplitter(handlers, maxLineChars);
  lines.feed(text);
  lines.end();
}
