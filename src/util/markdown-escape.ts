// Agent text in GitHub-flavoured Markdown: the report's md format and the batch's result files
// both write it through here. Agent output is untrusted: once rendered it must be plain text,
// never a link, an image, HTML, a mention, a code span or a table cell of its own. Only a strict
// URL (strictUrl) is ever made a link, by the caller. See docs/report.md.

// C0/C1 controls other than tab and line breaks: terminal escapes and invisible junk.
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

export function stripControls(text: string): string {
  return text.replace(CONTROLS, '');
}

// Characters with a meaning in GitHub-flavoured Markdown inline text (emphasis, code, links,
// images, tables, headings, math, strikethrough, HTML, autolinks, references).
// `_` between two letters or digits (compile_step) cannot start or end emphasis in CommonMark:
// it stays as written, so result files can be searched for the names they quote.
const MD_SPECIAL = /[\\`*{}[\]()#+!|~$]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
const MD_HTML = /[&<>]/g;
const MD_HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * Agent text as one line of inert Markdown, safe inside a table cell or a list item: control
 * characters dropped, line breaks become <br>, HTML is entity-escaped, Markdown syntax is
 * backslash-escaped, `://` and `www.` are escaped so no URL in it is autolinked, and @ is followed
 * by a zero-width space so no one is mentioned (nor an e-mail address linked).
 */
export function escapeMarkdown(text: string): string {
  return stripControls(text)
    .replace(MD_SPECIAL, (c) => `\\${c}`)
    .replace(MD_HTML, (c) => MD_HTML_ESCAPES[c]!)
    .replace(/:\/\//g, '\\://')
    .replace(/www\./gi, (w) => `${w.slice(0, 3)}\\.`)
    .replace(/@/g, '@\u200b')
    .replace(/\r\n?|\n|\u2028|\u2029/g, '<br>')
    .replace(/\t/g, ' ');
}

/** A fenced code block that the text cannot close: the fence is longer than any backtick run in it. */
export function markdownFence(text: string, info = ''): string {
  const body = stripControls(text).replace(/\r\n?/g, '\n');
  let longest = 0;
  for (const m of body.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${body}\n${fence}`;
}

/** Longest URL made a link; a longer one is not a PR link anyone wrote by hand. */
const MAX_URL_CHARS = 2_000;
/** What a strict URL's normalised text may hold after its host: unreserved characters,
 *  percent-escapes and the delimiters of paths, queries and fragments. Nothing that means
 *  anything in a Markdown link or table ( ( ) [ ] < > | ` \ " ' ! * space ). */
const STRICT_URL = /^https:\/\/[a-z0-9.-]+(:\d+)?(\/[A-Za-z0-9\-._~%/?#=&+,;:@]*)?$/;

/**
 * The URL when `raw` is a strict one: https, a host, no credentials, at most MAX_URL_CHARS, and
 * once normalised (new URL) nothing but URL characters. Else null: the caller shows no link.
 */
export function strictUrl(raw: unknown): URL | null {
  if (typeof raw !== 'string' || raw.length > MAX_URL_CHARS) return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '' || url.href.length > MAX_URL_CHARS) return null;
  return STRICT_URL.test(url.href) ? url : null;
}

/** The forge whose pull requests are labelled just "PR"; another host's are labelled by host. */
const FORGE_HOST = 'github.com';

/** How a PR link is labelled: "PR" on the forge, else its host. */
export function prLabel(url: URL): string {
  return url.hostname === FORGE_HOST ? 'PR' : url.hostname;
}

/** A strict URL (strictUrl) as a Markdown link labelled by prLabel; anything else is no link. */
export function markdownPrLink(raw: unknown): string | null {
  const url = strictUrl(raw);
  return url === null ? null : `[${escapeMarkdown(prLabel(url))}](${url.href})`;
}
