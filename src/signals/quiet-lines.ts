// The parser's hot loop. Almost every line of an agent's output is prose or code that cannot be a
// signal, a claim, a fence or an observation; this skips such lines as cheaply as it can: one
// native search for the line end, then a look at the first non-blank byte. Kept small and
// separate so that V8 optimises it within the first chunk.

import { CR, HASH, LF, SIGNIFICANT_FIRST_BYTES, SPACE, TAB, UPPER_L, UPPER_O } from './bytes.js';


/** SIGNIFICANT_FIRST_BYTES as a table. */
const MAYBE = new Uint8Array(256);
for (const b of SIGNIFICANT_FIRST_BYTES) MAYBE[b] = 1;

export interface LineSkip {
  /** Lines skipped. */
  lines: number;
  /**
   * In: the first CR at or after `pos`, or buf.length when there is none. Out: the same for
   * where the skip stopped.
   */
  cr: number;
}

/**
 * Skips, from `pos`, the lines that need no closer look outside an observation: ended by an LF
 * (or a CRLF) in this chunk, not longer than `maxLine`, not holding `stop` (the next
 * `<observation`; buf.length when there is none or it does not matter), holding no other CR, and
 * not starting (after blanks) like a signal, a fence or the claim. Returns where the first other
 * line starts.
 */
export function skipQuietLines(buf: Buffer, pos: number, stop: number, maxLine: number, out: LineSkip): number {
  let lines = 0;
  let cr = out.cr;
  for (;;) {
    const nl = buf.indexOf(LF, pos);
    if (nl === -1 || nl > stop || nl - pos > maxLine) break;
    if (cr < nl) {
      // A lone CR ends a line too: the parser reads that one. A CRLF's CR is the next CR's cue.
      if (cr !== nl - 1) break;
      cr = buf.indexOf(CR, nl + 1);
      if (cr === -1) cr = buf.length;
    }
    let first = pos;
    let b = buf[first]!;
    // Stops at the LF at the latest.
    while (b === SPACE || b === TAB) b = buf[++first]!;
    if (MAYBE[b] === 1 && mayMatter(buf, b, first, nl)) break;
    lines++;
    pos = nl + 1;
  }
  out.lines = lines;
  out.cr = cr;
  return pos;
}

/** A closer, still cheap, look at a line whose first non-blank byte is in MAYBE. */
function mayMatter(buf: Buffer, b: number, first: number, nl: number): boolean {
  if (b === UPPER_L) return buf[first + 1] === UPPER_O;
  if (b !== HASH) return buf[first + 1] === b && buf[first + 2] === b;
  if (buf[first + 1] !== HASH || buf[first + 2] !== HASH) return false;
  // Trimmed, a signal-shaped line also ends with ###.
  let last = nl;
  let c = buf[last - 1];
  while (c === SPACE || c === TAB || c === CR) c = buf[--last - 1];
  return last - first >= 6 && c === HASH && buf[last - 2] === HASH && buf[last - 3] === HASH;
}
