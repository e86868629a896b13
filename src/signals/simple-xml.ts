// A quick yes for the plain XML agents write: one element whose children are elements or text,
// ASCII names, quoted attributes, and only well-formed entity references. A yes means
// fast-xml-parser's XMLValidator would accept the text too (a strict subset, checked by a
// property test), so its slower pass can be skipped. A no proves nothing: the validator decides.
import { AMP, APOS, EQ, GT, HASH, LOWER_X, LT, QUOTE, SEMI, SLASH } from './bytes.js';


/** Tag and attribute names: [A-Za-z_][A-Za-z0-9_.-]* (XML allows more; those take the slow path). */
const NAME_START = new Uint8Array(128);
const NAME_CHAR = new Uint8Array(128);
/** Characters of a named entity reference, as the validator reads them (\w). */
const WORD = new Uint8Array(128);
const DIGIT = new Uint8Array(128);
const HEX = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c);
  NAME_START[c] = /[A-Za-z_]/.test(ch) ? 1 : 0;
  NAME_CHAR[c] = /[A-Za-z0-9_.-]/.test(ch) ? 1 : 0;
  WORD[c] = /\w/.test(ch) ? 1 : 0;
  DIGIT[c] = /[0-9]/.test(ch) ? 1 : 0;
  HEX[c] = /[0-9A-Fa-f]/.test(ch) ? 1 : 0;
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function inTable(table: Uint8Array, c: number): boolean {
  return c < 128 && table[c] === 1;
}

/** End of the name starting at `at`, or -1 when there is none. */
function nameEnd(s: string, at: number): number {
  if (!inTable(NAME_START, s.charCodeAt(at))) return -1;
  let i = at + 1;
  while (inTable(NAME_CHAR, s.charCodeAt(i))) i++;
  return i;
}

/** Index after `&…;` at `at`, or -1 unless it is a named, decimal or hex reference. */
function referenceEnd(s: string, at: number): number {
  let i = at + 1;
  let table = WORD;
  let max = 19;
  if (s.charCodeAt(i) === HASH) {
    i++;
    table = DIGIT;
    max = 8;
    if (s.charCodeAt(i) === LOWER_X) {
      i++;
      table = HEX;
    }
  }
  const first = i;
  while (i - first < max && inTable(table, s.charCodeAt(i))) i++;
  return i > first && s.charCodeAt(i) === SEMI ? i + 1 : -1;
}

/**
 * Attributes and the `>` of a start tag from `at` (just after its name); index after the `>`, or
 * -1. Each attribute is preceded by white space and written name="value" or name='value', the
 * value without <, > or &; no name twice.
 */
function startTagEnd(s: string, at: number, names: string[]): number {
  names.length = 0;
  let i = at;
  for (;;) {
    const spaceFrom = i;
    while (isSpace(s.charCodeAt(i))) i++;
    if (s.charCodeAt(i) === GT) return i + 1;
    if (i === spaceFrom) return -1;
    const end = nameEnd(s, i);
    if (end === -1 || s.charCodeAt(end) !== EQ) return -1;
    const name = s.slice(i, end);
    if (names.includes(name)) return -1;
    names.push(name);
    const quote = s.charCodeAt(end + 1);
    if (quote !== QUOTE && quote !== APOS) return -1;
    i = end + 2;
    for (;;) {
      const c = s.charCodeAt(i);
      if (c === quote) break;
      if (Number.isNaN(c) || c === LT || c === GT || c === AMP) return -1;
      i++;
    }
    i++;
  }
}

export function isSimpleElement(s: string): boolean {
  if (s.charCodeAt(0) !== LT) return false;
  const open: string[] = [];
  const attributes: string[] = [];
  let i = 0;
  const n = s.length;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === LT) {
      if (s.charCodeAt(i + 1) === SLASH) {
        const end = nameEnd(s, i + 2);
        if (end === -1 || s.charCodeAt(end) !== GT || open.pop() !== s.slice(i + 2, end)) return false;
        i = end + 1;
        if (open.length === 0) break;
      } else {
        const end = nameEnd(s, i + 1);
        if (end === -1) return false;
        const after = startTagEnd(s, end, attributes);
        if (after === -1) return false;
        open.push(s.slice(i + 1, end));
        i = after;
      }
    } else if (c === AMP) {
      i = referenceEnd(s, i);
      if (i === -1) return false;
    } else {
      i++;
    }
  }
  if (open.length > 0 || i === 0) return false;
  while (i < n) if (!isSpace(s.charCodeAt(i++))) return false;
  return true;
}
