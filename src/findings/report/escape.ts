// Every piece of agent text passes through one of these before it reaches a report. Agent output
// is untrusted: it must not run in a browser, nor break out of a Markdown table cell or fence.

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const HTML_SPECIAL = /[&<>"']/g;

/** Safe in element text and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return HTML_ANY.test(text) ? text.replace(HTML_SPECIAL, (c) => HTML_ESCAPES[c]!) : text;
}
const HTML_ANY = /[&<>"']/;

const SCRIPT_SPECIAL = /[<>&\u2028\u2029]/g;

/** JSON for a <script type="application/json"> block: no `</script>`, `<!--`, or JS line breaks. */
export function jsonForScript(value: unknown): string {
  return scriptSafe(JSON.stringify(value));
}

/** The same for JSON text already written: `<`, `>`, `&` and JS line breaks as \\u escapes. */
export function scriptSafe(json: string): string {
  return json.replace(SCRIPT_SPECIAL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The URL, normalised, when it is an absolute https URL without credentials; otherwise null. */
export function safeHttpsUrl(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return null;
  return url.href;
}

// C0/C1 controls other than tab and line breaks: terminal escapes and invisible junk.
const CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

export function stripControls(text: string): string {
  return CONTROLS_ANY.test(text) ? text.replace(CONTROLS, '') : text;
}
const CONTROLS_ANY = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

// Characters with a meaning in GitHub-flavoured Markdown inline text (emphasis, code, links,
// images, tables, headings, math, strikethrough, HTML, autolinks, references).
const MD_SPECIAL = /[\\`*_{}[\]()#+!|~$]/g;
const MD_HTML = /[&<>]/g;
const MD_HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/**
 * Agent text as one line of inert Markdown, safe inside a table cell: line breaks become <br>,
 * HTML is entity-escaped, Markdown syntax is backslash-escaped, and @mentions are broken with a
 * zero-width space so a report posted as a PR comment cannot ping anyone.
 */
export function escapeMarkdown(text: string): string {
  // Fast path: most text needs nothing.
  if (!MD_ANY.test(text)) return text;
  return stripControls(text)
    .replace(MD_SPECIAL, (c) => `\\${c}`)
    .replace(MD_HTML, (c) => MD_HTML_ESCAPES[c]!)
    .replace(/@/g, '@\u200b')
    .replace(/\r\n?|\n|\u2028|\u2029/g, '<br>')
    .replace(/\t/g, ' ');
}

const MD_ANY = /[\\`*_{}[\]()#+!|~$&<>@\r\n\t\u2028\u2029\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** A fenced code block that the text cannot close: the fence is longer than any backtick run in it. */
export function markdownFence(text: string, info = ''): string {
  const body = stripControls(text).replace(/\r\n?/g, '\n');
  let longest = 0;
  for (const m of body.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${body}\n${fence}`;
}

/** Shorten for display, marking the cut. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
