// The parser's hot loop. Almost every line of an agent's output is prose or code that cannot be a
// signal, a claim, a fence, an observation or a near miss; this skips such lines as cheaply as it
// can: one native search for the line end, then a look at the first non-blank byte and the last
// byte. Kept small and separate so that V8 optimises it within the first chunk.

import { LOOP_COMPLETE_LINE } from '../contract.js';
import { CR, HASH, LF, LOWER_A, LOWER_Z, SIGNIFICANT_FIRST_BYTES, SPACE, TAB, UPPER_L, UPPER_O } from './bytes.js';

/** SIGNIFICANT_FIRST_BYTES as a table. */
const MAYBE = new Uint8Array(256);
for (const b of SIGNIFICANT_FIRST_BYTES) MAYBE[b] = 1;

/**
 * What may close a line after a signal and still leave it a near miss: blanks, a CRLF's CR,
 * Markdown marks, quotes, '!'. Not '.' or ')': they end too many lines of prose and code to look
 * at each of them (`Done: ###PLAN_COMPLETE###.` is not judged).
 */
const TRAILING = new Uint8Array(256);
for (const c of ' \t\r*_`~"\'!') TRAILING[c.charCodeAt(0)] = 1;
const LOOP_COMPLETE = Buffer.from(LOOP_COMPLETE_LINE);
/** Last bytes of a line that may end like a signal: those, and the last of ### and of LOOP_COMPLETE. */
const END_MAYBE = TRAILING.slice();
END_MAYBE[HASH] = 1;
END_MAYBE[LOOP_COMPLETE[LOOP_COMPLETE.length - 1]!] = 1;

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
 * `<observation`; buf.length when there is none or it does not matter), holding no other CR, not
 * starting (after blanks) like a signal, a fence or the claim, and not shaped like a near miss
 * (nearMissShaped). Returns where the first other line starts.
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
    // (A blank line ends before its first non-blank byte: no read outside the line, which keeps the
    // table's index a small integer and this loop fast.)
    if (nl > first && END_MAYBE[buf[nl - 1]!] === 1 && endsLikeSignal(buf, first, nl)) break;
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
  if (startsWithToken(buf, first)) return true;
  // Trimmed, a signal-shaped line also ends with ###.
  let last = nl;
  let c = buf[last - 1];
  while (c === SPACE || c === TAB || c === CR) c = buf[--last - 1];
  return last - first >= 6 && c === HASH && buf[last - 2] === HASH && buf[last - 3] === HASH;
}

/** Three or more # and then a letter, at `first`: `###PLAN_COMPLETE`, not a heading's `### Progress`. */
function startsWithToken(buf: Buffer, first: number): boolean {
  if (buf[first] !== HASH || buf[first + 1] !== HASH || buf[first + 2] !== HASH) return false;
  let i = first + 3;
  while (buf[i] === HASH) i++;
  // Upper case letters become lower case; no other byte becomes a letter.
  const lower = buf[i]! | 0x20;
  return lower >= LOWER_A && lower <= LOWER_Z;
}

/**
 * Whether [first, end), its closing marks, quotes and punctuation put aside, ends with ### or
 * LOOP_COMPLETE: `Done! ###PLAN_COMPLETE###`, `**LOOP_COMPLETE**`.
 */
function endsLikeSignal(buf: Buffer, first: number, end: number): boolean {
  let last = end;
  while (last > first && TRAILING[buf[last - 1]!] === 1) last--;
  if (last - first >= 3 && buf[last - 1] === HASH && buf[last - 2] === HASH && buf[last - 3] === HASH) return true;
  const n = LOOP_COMPLETE.length;
  if (last - first < n) return false;
  for (let k = 1; k <= n; k++) if (buf[last - k] !== LOOP_COMPLETE[n - k]) return false;
  return true;
}

/**
 * Whether the line [first, end) (first: its first non-blank byte) is judged for a near miss
 * (docs/parser.md "Near misses"): it starts with a signal-like token or LOOP_COMPLETE, or ends
 * like a signal (endsLikeSignal). Every such line stops the skip.
 */
export function nearMissShaped(buf: Buffer, first: number, end: number): boolean {
  if (startsWithToken(buf, first)) return true;
  if (end - first >= LOOP_COMPLETE.length && LOOP_COMPLETE.equals(buf.subarray(first, first + LOOP_COMPLETE.length))) return true;
  return endsLikeSignal(buf, first, end);
}
