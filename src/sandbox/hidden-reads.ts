// Refused reads as seen in a sandboxed command's output. On Linux the sandbox hides a secret
// folder behind an empty one and reports nothing when it is read; the command's own complaint
// ("…/.ssh/id_rsa: No such file or directory", "ENOENT … '/…/.ssh/id_rsa'") is the trace left.
// A hint, never a decision: the text is the agent's (docs/sandbox.md "What is reported").
import type { Refusal } from './refusals.js';

const COMPLAINT = /No such file or directory|ENOENT|Permission denied|EACCES/;
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
    const lines = text.split('\n');
    this.partial = (lines.pop() ?? '').slice(-MAX_LINE);
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    if (!COMPLAINT.test(line)) return;
    for (const match of line.slice(0, MAX_LINE).matchAll(this.pattern!)) this.onRead({ what: 'read', target: match[0] });
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
