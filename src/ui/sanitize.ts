// Agent output is untrusted: escape sequences in it could move the cursor, rewrite the screen
// or set the clipboard. Only printable text, tabs and line ends reach the terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[@-Z\\-_]|[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f\x9b]/g;

export function stripControl(text: string): string {
  return text.replace(CONTROL, '');
}

/** Agent text inside one line of ralph's own output: sanitised, and unable to start a new line. */
export function stripControlLine(text: string): string {
  return stripControl(text).replace(/[\r\n\u2028\u2029]+/g, ' ');
}

// JSON.stringify escapes only C0 controls; DEL, C1 (U+009B starts an escape sequence on some
// terminals) and the two line separators are escaped too, so a line is safe to print anywhere.
// eslint-disable-next-line no-control-regex
const JSON_UNSAFE = /[\u007f-\u009f\u2028\u2029]/g;
const escapeChar = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** JSON text that is safe to print on a terminal, whatever strings it holds. */
export function safeJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(JSON_UNSAFE, escapeChar);
}
