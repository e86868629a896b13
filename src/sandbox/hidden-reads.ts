// Refused reads as seen in a sandboxed command's output. On Linux the sandbox hides a secret
// folder behind an empty one and reports nothing when it is read; the command's own complaint
// ("…/.ssh/id_rsa: No such file or directory", "ENOENT … '/…/.ssh/id_rsa'") is the trace left.
// A hint, never a decision: the text is the agent's (docs/sandbox.md "What is reported").
import type { Refusal } from './refusals.js';

const COMPLAINT = /No such file or directory|ENOENT|Permission denied|EACCES/;
const MAX_LINE = 8_192;

/** The complaints' words as bytes: a chunk is searched for them without being decoded. */
const WORDS = ['No such file or directory', 'ENOENT', 'Permission denied', 'EACCES'].map((w) => Buffer.from(w));
const LF = 0x0a;

export class HiddenReadScanner {
  /** The start of the current line (at most MAX_LINE bytes of it). */
  private partial: Buffer = Buffer.alloc(0);
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
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    if (this.partial.length > 0) {
      // The line begun in an earlier chunk, once it is whole.
      const nl = buf.indexOf(LF);
      if (nl === -1) {
        this.partial = Buffer.concat([this.partial, buf]).subarray(-MAX_LINE);
        return;
      }
      this.check(Buffer.concat([this.partial, buf.subarray(0, nl)]));
      start = nl + 1;
    }
    // Only a whole line holding a complaint is decoded and looked at; the lines before it are
    // passed over as bytes (agent output runs to millions of lines).
    for (;;) {
      const at = nextWord(buf, start);
      if (at === -1) break;
      const nl = buf.indexOf(LF, at);
      if (nl === -1) break; // in the last line, not whole yet
      this.check(buf.subarray(buf.lastIndexOf(LF, at) + 1, nl));
      start = nl + 1;
    }
    const last = buf.lastIndexOf(LF);
    this.partial = Buffer.from(buf.subarray(Math.max(start, last + 1)).subarray(-MAX_LINE));
  }

  private check(bytes: Buffer): void {
    const line = bytes.toString('utf8');
    if (!COMPLAINT.test(line)) return;
    for (const match of line.slice(0, MAX_LINE).matchAll(this.pattern!)) this.onRead({ what: 'read', target: match[0] });
  }
}

function nextWord(buf: Buffer, start: number): number {
  let first = -1;
  for (const word of WORDS) {
    const at = buf.indexOf(word, start);
    if (at !== -1 && (first === -1 || at < first)) first = at;
  }
  return first;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
