// A tool call as a person reads it, `Bash(npm test)`: for the status line, the page and `ralph logs`.
import { stripControl } from './sanitize.js';

export function toolLabel(name: string, summary: string): string {
  const n = stripControl(name).replace(/\s+/g, ' ').trim().slice(0, 60);
  const s = stripControl(summary).replace(/\s+/g, ' ').trim();
  return s === '' ? n : `${n}(${s.length > 80 ? `${s.slice(0, 79)}…` : s})`;
}
