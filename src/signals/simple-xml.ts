// A quick yes for the plain XML agents write: one element whose children are elements or text,
// ASCII names, quoted attributes, and only well-formed entity references. A yes means
// fast-xml-parser's XMLValidator would accept the text too (a strict subset, checked by a
// property test), so its slower pass can be skipped. A no proves nothing: the validator decides.
import { AMP, APOS, EQ, GT, HASH, LOWER_X, LT, QUOTE, SEMI, SLASH } from './bytes.js';


// The grammar, once, for both readers below: the byte tables of isSimpleElement and the regular
// expressions of readFlatElement are built from these.
/** Tag and attribute names: [A-Za-z_][A-Za-z0-9_.-]* (XML allows more; those take the slow path). */
const NAME_START_CLASS = 'A-Za-z_';
const NAME_CHAR_CLASS = 'A-Za-z0-9_.-';
const HEX_CLASS = '0-9A-Fa-f';
/** Longest named reference (characters of \w, as the validator reads them) and numeric one. */
const MAX_NAMED_REFERENCE = 19;
const MAX_NUMERIC_REFERENCE = 8;

const NAME_START = new Uint8Array(128);
const NAME_CHAR = new Uint8Array(128);
const WORD = new Uint8Array(128);
const DIGIT = new Uint8Array(128);
const HEX = new Uint8Array(128);
const TABLES: [Uint8Array, RegExp][] = [
  [NAME_START, new RegExp(`[${NAME_START_CLASS}]`)],
  [NAME_CHAR, new RegExp(`[${NAME_CHAR_CLASS}]`)],
  [WORD, /\w/],
  [DIGIT, /[0-9]/],
  [HEX, new RegExp(`[${HEX_CLASS}]`)],
];
for (let c = 0; c < 128; c++) {
  for (const [table, re] of TABLES) table[c] = re.test(String.fromCharCode(c)) ? 1 : 0;
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
  let max = MAX_NAMED_REFERENCE;
  if (s.charCodeAt(i) === HASH) {
    i++;
    table = DIGIT;
    max = MAX_NUMERIC_REFERENCE;
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

/** What readFlatElement finds: the root's attributes and its children's text, as written. */
export interface FlatElement {
  name: string;
  /** Names and values, alternating. */
  attributes: string[];
  /** Names and text, alternating; text trimmed as fast-xml-parser trims it, references as written. */
  children: string[];
}

/** The value after `key` in an alternating list of names and values. */
export function valueOf(pairs: readonly string[], key: string): string | undefined {
  for (let i = 0; i < pairs.length; i += 2) if (pairs[i] === key) return pairs[i + 1];
  return undefined;
}

/**
 * The shape nearly every observation has: one element, attributes as isSimpleElement accepts
 * them, and only children of the form <name>text</name> (no attributes, no grandchildren, no name
 * twice, nothing but white space between them). For such text it gives what fast-xml-parser gives
 * (held to it by a property test) at a small part of the cost; for anything else, undefined, and
 * fast-xml-parser reads it.
 */
export function readFlatElement(s: string): FlatElement | undefined {
  // Regular expressions, not a loop over characters: an observation is rare, so this code runs
  // cold, and V8 compiles a regular expression to machine code at once where a JavaScript loop
  // would be interpreted for the first few thousand elements.
  const root = ROOT.exec(s);
  if (root === null) return undefined;
  const name = root[1]!;
  if (RESERVED.test(name)) return undefined;
  const attributes: string[] = [];
  let at = root[0].length;
  for (ATTRIBUTE.lastIndex = at; ; ) {
    const m = ATTRIBUTE.exec(s);
    if (m === null) break;
    const key = m[1]!;
    if (RESERVED.test(key) || valueOf(attributes, key) !== undefined) return undefined;
    attributes.push(key, normalize(m[2] ?? m[3]!));
    at = ATTRIBUTE.lastIndex;
  }
  START_TAG_END.lastIndex = at;
  if (START_TAG_END.exec(s) === null) return undefined;
  at = START_TAG_END.lastIndex;
  const children: string[] = [];
  for (CHILD.lastIndex = at; ; ) {
    const m = CHILD.exec(s);
    if (m === null) break;
    const child = m[1]!;
    if (RESERVED.test(child) || valueOf(children, child) !== undefined) return undefined;
    children.push(child, normalize(m[2]!));
    at = CHILD.lastIndex;
  }
  // fast-xml-parser turns an element with no children into '' or an attributes-only object.
  if (children.length === 0) return undefined;
  // The root's closing tag, then nothing but white space.
  END_TAG.lastIndex = at;
  const end = END_TAG.exec(s);
  return end !== null && end[1] === name ? { name, attributes, children } : undefined;
}

// The grammar of isSimpleElement (names, quoted attribute values without < > &, references as
// the validator reads them), restricted to the flat shape.
const NAME = `[${NAME_START_CLASS}][${NAME_CHAR_CLASS}]*`;
const REFERENCE = `&(?:\\w{1,${MAX_NAMED_REFERENCE}}|#[0-9]{1,${MAX_NUMERIC_REFERENCE}}|#x[${HEX_CLASS}]{1,${MAX_NUMERIC_REFERENCE}});`;
const ROOT = new RegExp(`^<(${NAME})`);
const ATTRIBUTE = new RegExp(`[ \\t\\r\\n]+(${NAME})=(?:"([^"<>&]*)"|'([^'<>&]*)')`, 'y');
const START_TAG_END = /[ \t\r\n]*>/y;
const CHILD = new RegExp(`[ \\t\\r\\n]*<(${NAME})>((?:[^<&]|${REFERENCE})*)</\\1>`, 'y');
const END_TAG = new RegExp(`[ \\t\\r\\n]*</(${NAME})>[ \\t\\r\\n]*$`, 'y');

/** Names fast-xml-parser refuses or renames (it guards against prototype pollution): its path. */
const RESERVED = /^(?:__proto__|constructor|prototype|hasOwnProperty|toString|valueOf|__(?:define|lookup)[GS]etter__)$/i;

/** As fast-xml-parser gives values: line ends normalised (XML 1.0 §2.11), then trimmed. */
function normalize(value: string): string {
  return (value.includes('\r') ? value.replace(/\r\n?/g, '\n') : value).trim();
}
