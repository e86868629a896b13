// Agent output is untrusted: escape sequences in it could move the cursor, rewrite the screen
// or set the clipboard. Only printable text, tabs and line ends reach the terminal.
// eslint-disable-next-line no-control-regex
const CONTROL = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*(?:\x1b\\)?|\x1b[@-Z\\-_]|[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f\x9b]/g;

export function stripControl(text: string): string {
  return text.replace(CONTROL, '');
}
