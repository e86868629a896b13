// Refused reads as seen in a sandboxed command's output. On Linux the sandbox hides a secret
// folder behind an empty one and reports nothing when it is read; the command's own complaint
// ("…/.ssh/id_rsa: No such file or directory", "ENOENT … '/…/.ssh/id_rsa'") is the trace left.
// A hint, never a decision: the text is the agent's (docs/sandbox.md "What is reported").
import type { Refusal } from './refusals.js';

const COMPLAINT = /No such file or directory|ENOENT|Permission denied|EACCES/;
const ANY_COMPLAINT = new RegExp(COMPLAINT.source, 'g');
const MAX_LINE = 8_192;

export class HiddenReadScanner {
  private partial = '';
  private readonly pattern: RegExp | undefined;

  constructor(
    hidden: readonly string[],
    private readonly onRead: (r: Refusal) => void,
  ) {
    const roots = hidden.filter((h) => h.length > 1).map(escapeRegExp);
    this.pattern = roots.length === 0 ? undefined : new RegExp(`(?:${roots.join('|')})(?:/[^\\s'"\`\\\\:,;)\\]]*)?`, 'g');
  }

  push(chunk: Buffer | string): void {
    if (this.pattern === undefined) return;
    const text = this.partial + (typeof chunk === 'string' ? chunk : chunk.toString('utf8'));
    // Only a whole line holding a complaint is looked at; the lines before it are passed over
    // without being split out one by one (agent output runs to millions of lines).
    for (let start = 0; ; ) {
      ANY_COMPLAINT.lastIndex = start;
      const m = ANY_COMPLAINT.exec(text);
      if (m === null) break;
      const nl = text.indexOf('\n', m.index);
      if (nl === -1) break; // in the last line, not whole yet
      this.line(text.slice(text.lastIndexOf('\n', m.index) + 1, nl));
      start = nl + 1;
    }
    this.partial = text.slice(text.lastIndexOf('\n') + 1).slice(-MAX_LINE);
  }

  private line(line: string): void {
    if (!COMPLAINT.test(line)) return;
    for (const match of line.slice(0, MAX_LINE).matchAll(this.pattern!)) this.onRead({ what: 'read', target: match[0] });
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
