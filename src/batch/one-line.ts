// Agent text ends up inside line-oriented result files that scripts parse. This keeps it on one
// line, without the column separator, and unable to forge the completion sentinel.
import { escapeMarkdown } from '../util/markdown-escape.js';

// C0, DEL and C1 (U+009B alone starts an escape sequence on some terminals), and the line separators.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

export function oneLine(text: string, maxLength = 200): string {
  let s = text
    .replace(CONTROL, ' ')
    .replace(/\|/g, '/')
    // An HTML comment opener could hide the rest of the line or mimic the sentinel.
    .replace(/<!--/g, '<!- -')
    .replace(/-->/g, '- ->')
    .replace(/\s+/g, ' ')
    .trim();
  if (s.length > maxLength) s = `${s.slice(0, maxLength - 1)}…`;
  return s;
}

/** oneLine() of agent text for a Markdown file (a plan's result file): once rendered it is only
 *  text, never a link, an image, HTML or a mention (util/markdown-escape.ts). */
export function markdownLine(text: string, maxLength?: number): string {
  return escapeMarkdown(oneLine(text, maxLength));
}
