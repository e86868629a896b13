// Renders Markdown as GitHub does (GFM: tables, autolinks, strikethrough...) with micromark, raw
// HTML and every link protocol let through, so a test sees what a lax renderer would make of it.
import { micromark } from 'micromark';
import { gfm, gfmHtml } from 'micromark-extension-gfm';

/** The PR_URL a hostile agent wrote (issue 15): an image, a javascript: link, a cell, a mention. */
export const HOSTILE_PR_URL = 'https://github.com/a/b/pull/1) ![x](https://evil.example/t.png) [click](javascript:alert(1)) | @everyone';
/** Agent text with everything GFM could make live. */
export const HOSTILE_TEXT = `${HOSTILE_PR_URL} <img src=x onerror="alert(2)"> www.evil.example mail@evil.example \`code\` **bold** <script>alert(3)</script>\nnext line`;

export function renderGfm(markdown: string): string {
  return micromark(markdown, { extensions: [gfm()], htmlExtensions: [gfmHtml()], allowDangerousHtml: true, allowDangerousProtocol: true });
}

/** Tags micromark makes from Markdown syntax (and the <br> ralph writes for line breaks). */
const MARKDOWN_TAGS = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'strong', 'em', 'code', 'pre', 'a', 'br', 'hr', 'blockquote', 'del']);

export interface GfmInspection {
  html: string;
  /** `<img>` elements. */
  images: number;
  /** Every href of every link. */
  hrefs: string[];
  /** Tags that Markdown syntax does not make: raw HTML that got through. */
  rawTags: string[];
  /** Cells per table row, row by row (header rows included). */
  rowCells: number[];
  /** The rendered text (tags removed, entities decoded as far as tests need). */
  text: string;
}

export function inspectGfm(markdown: string): GfmInspection {
  const html = renderGfm(markdown);
  const tags = [...html.matchAll(/<\/?([a-zA-Z][a-zA-Z0-9-]*)/g)].map((m) => m[1]!.toLowerCase());
  const rowCells = [...html.matchAll(/<tr>([^]*?)<\/tr>/g)].map((m) => (m[1]!.match(/<t[dh][\s>]/g) ?? []).length);
  const text = html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
  return {
    html,
    images: tags.filter((t) => t === 'img').length,
    hrefs: [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]!),
    rawTags: tags.filter((t) => !MARKDOWN_TAGS.has(t)),
    rowCells,
    text,
  };
}
