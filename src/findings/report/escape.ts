// Every piece of agent text passes through one of these before it reaches a report. Agent output
// is untrusted: it must not run in a browser, nor break out of a Markdown table cell or fence.
// The Markdown escaping is shared with the batch's result files (util/markdown-escape.ts).
import { strictUrl } from '../../util/markdown-escape.js';

export { escapeMarkdown, markdownFence, stripControls } from '../../util/markdown-escape.js';

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

/** The URL, normalised, when it is a strict one (see strictUrl); otherwise null. */
export function safeHttpsUrl(raw: unknown): string | null {
  return strictUrl(raw)?.href ?? null;
}

/** Shorten for display, marking the cut. */
export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}
