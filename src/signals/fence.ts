// CommonMark fenced code blocks, on raw bytes: a line of at least three backticks or tildes,
// indented at most three spaces, opens a fence; only a line of the same character, at least as
// long, with nothing but spaces after it, closes it.
import { BACKTICK, CR, SPACE, TAB, TILDE } from './bytes.js';


export interface OpenFence {
  char: number;
  length: number;
}

/** Length of the run of `char` at `at`, stopping at `end`. */
function runLength(buf: Uint8Array, at: number, end: number, char: number): number {
  let i = at;
  while (i < end && buf[i] === char) i++;
  return i - at;
}

/** `first` is the index of the first non-space byte of the line [start, end). */
export function fenceOpening(buf: Uint8Array, start: number, first: number, end: number): OpenFence | undefined {
  const char = buf[first];
  if ((char !== BACKTICK && char !== TILDE) || first - start > 3) return undefined;
  if (hasTabBefore(buf, start, first)) return undefined;
  const length = runLength(buf, first, end, char);
  if (length < 3) return undefined;
  if (char === BACKTICK) {
    // A backtick fence's info string may not contain backticks.
    for (let i = first + length; i < end; i++) if (buf[i] === BACKTICK) return undefined;
  }
  return { char, length };
}

export function closesFence(buf: Uint8Array, start: number, first: number, end: number, fence: OpenFence): boolean {
  if (buf[first] !== fence.char || first - start > 3 || hasTabBefore(buf, start, first)) return false;
  const length = runLength(buf, first, end, fence.char);
  if (length < fence.length) return false;
  for (let i = first + length; i < end; i++) {
    const b = buf[i];
    if (b !== SPACE && b !== TAB && b !== CR) return false;
  }
  return true;
}

function hasTabBefore(buf: Uint8Array, start: number, first: number): boolean {
  for (let i = start; i < first; i++) if (buf[i] === TAB) return true;
  return false;
}
