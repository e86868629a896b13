// A tolerant reader for the few XML-like elements of a plan body (<tasks>, <task>, <name>…).
// The text between the tags is Markdown and may hold "<", "&", `Map<string, number>` or a code
// fence full of angle brackets, so a strict XML parser would refuse valid plans. Instead, tags
// are found in a masked copy of the body where code (fences, inline spans) and HTML comments
// are blanked out, so examples of tags are not taken for tags; text is taken from the original.
import { FenceTracker } from './fences.js';

export interface Tag {
  name: string;
  close: boolean;
  /** Offset of "<" and just past ">" in the body. */
  start: number;
  end: number;
  attrs: Record<string, string>;
}

function blank(s: string): string {
  return s.replace(/[^\n]/g, ' ');
}

function runLength(line: string, at: number): number {
  let n = 0;
  while (line[at + n] === '`') n++;
  return n;
}

/** Inline code spans on one line: a run of backticks up to the next run of the same length. */
function maskInlineCode(line: string): string {
  let at = line.indexOf('`');
  if (at === -1) return line;
  let out = '';
  let copied = 0;
  while (at !== -1) {
    const run = runLength(line, at);
    let close = line.indexOf('`', at + run);
    while (close !== -1 && runLength(line, close) !== run) close = line.indexOf('`', close + runLength(line, close));
    if (close === -1) {
      // An unmatched run is literal backticks; a later, shorter run may still open a span.
      at = line.indexOf('`', at + run);
      continue;
    }
    out += line.slice(copied, at) + ' '.repeat(close + run - at);
    copied = close + run;
    at = line.indexOf('`', copied);
  }
  return out + line.slice(copied);
}

/** The body with code and comments replaced by spaces; offsets and line breaks are kept. */
export function maskCode(body: string): string {
  const fences = new FenceTracker(true);
  const lines = body.split('\n').map((line) => (fences.step(line) ? blank(line) : maskInlineCode(line)));
  return maskComments(lines.join('\n'));
}

// By hand rather than a lazy regex: a text with many unclosed "<!--" would make that quadratic.
function maskComments(text: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const open = text.indexOf('<!--', from);
    const close = open === -1 ? -1 : text.indexOf('-->', open + 4);
    if (close === -1) return out + text.slice(from);
    out += text.slice(from, open) + blank(text.slice(open, close + 3));
    from = close + 3;
  }
}

const TAG = /<(\/?)([a-z][a-z0-9_-]*)((?:\s[^<>]*)?\/?)>/g;
const ATTR = /([A-Za-z_:][-\w:.]*)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/g;

/** Every tag among `names`, in order. A self-closing tag yields an open and a close tag. */
export function findTags(masked: string, names: ReadonlySet<string>): Tag[] {
  const tags: Tag[] = [];
  for (const m of masked.matchAll(TAG)) {
    const name = m[2]!;
    if (!names.has(name)) continue;
    const start = m.index;
    const end = start + m[0].length;
    let rest = m[3] ?? '';
    const selfClosing = rest.trimEnd().endsWith('/');
    if (selfClosing) rest = rest.trimEnd().slice(0, -1);
    const attrs: Record<string, string> = {};
    if (m[1] === '') for (const a of rest.matchAll(ATTR)) attrs[a[1]!] = a[2] ?? a[3] ?? a[4] ?? '';
    tags.push({ name, close: m[1] === '/', start, end, attrs });
    if (selfClosing && m[1] === '') tags.push({ name, close: true, start: end, end, attrs: {} });
  }
  return tags;
}

/** Element text as a reader wants it: CRLF folded, surrounding blank lines and common indentation removed. */
export function cleanText(raw: string): string {
  const lines = raw.replace(/\r\n?/g, '\n').split('\n');
  // Text right after the opening tag has no indentation of its own; it must not count.
  const firstOnTagLine = lines.length > 1 && lines[0]!.trim() !== '';
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  const indented = firstOnTagLine ? lines.slice(1) : lines;
  const indents = indented.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length);
  const common = indents.length > 0 ? Math.min(...indents) : 0;
  return lines
    .map((l) => l.slice(Math.min(common, /^[ \t]*/.exec(l)![0].length)))
    .join('\n')
    .trim();
}

/** 1-based line numbers of offsets in a text whose first line is `firstLine`. */
export function lineIndex(text: string, firstLine: number): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return firstLine + lo;
  };
}
