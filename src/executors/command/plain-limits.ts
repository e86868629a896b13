// Text mode: the usage- and rate-limit notices agent CLIs print as plain lines become `limit`
// events (docs/agents.md, "Limits and errors"). Lines are held only until their end, and only up
// to a bound; a longer line is no CLI notice.
import { limitEvent, limitFromPlainLine, PLAIN_NOTICE_HINT as NOTICE } from '../../agents/limit-text.js';
import type { ExecutorEvent } from '../types.js';

const MAX_LINE = 4096;

export class PlainLimits {
  private partial = '';
  private skipping = false;

  /** `now`: the loop's clock, against which "resets 3am" is read. */
  constructor(private readonly now: () => number = Date.now) {}

  /** Limit events in the complete lines of this chunk (a line already decoded as text). */
  push(text: string): ExecutorEvent[] {
    const out: ExecutorEvent[] = [];
    let start = 0;
    for (;;) {
      if (this.partial === '' && !this.skipping) {
        // At a line start: the whole lines before the next one that could be a notice hold none.
        NOTICE.lastIndex = start;
        const m = NOTICE.exec(text);
        start = Math.max(start, text.lastIndexOf('\n', m === null ? text.length - 1 : m.index) + 1);
      }
      const nl = text.indexOf('\n', start);
      const piece = text.slice(start, nl === -1 ? text.length : nl);
      if (!this.skipping) {
        this.partial += piece;
        if (this.partial.length > MAX_LINE) {
          this.partial = '';
          this.skipping = true;
        }
      }
      if (nl === -1) break;
      if (!this.skipping) this.check(this.partial, out);
      this.partial = '';
      this.skipping = false;
      start = nl + 1;
    }
    return out;
  }

  end(): ExecutorEvent[] {
    const out: ExecutorEvent[] = [];
    if (!this.skipping && this.partial) this.check(this.partial, out);
    this.partial = '';
    return out;
  }

  private check(line: string, out: ExecutorEvent[]): void {
    const limit = limitFromPlainLine(line, this.now());
    if (!limit) return;
    out.push(limitEvent(limit, line.trim().slice(0, 500)));
  }
}
