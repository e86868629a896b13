import type { RunEvent } from '../loop/events.js';
import { describeEvent } from './describe-event.js';
import type { Renderer, RendererOptions } from './renderer.js';
import { stripControl } from './sanitize.js';

/**
 * Without a terminal: timestamped lines, the agent's output in between, never a control
 * sequence. Like every human-readable line of ralph's, they go to stderr (docs/first-hour.md);
 * stdout is for what scripts read.
 */
export function plainRenderer(o: RendererOptions): Renderer {
  const now = o.clock ?? (() => new Date());
  const out = o.stderr;
  let midLine = false;
  let pendingCR = false;
  const line = (text: string) => {
    if (midLine) out.write('\n');
    midLine = false;
    for (const l of text.split('\n')) out.write(`[${now().toISOString().slice(11, 19)}] ralph: ${l}\n`);
  };
  return {
    onEvent(e: RunEvent) {
      if (e.type === 'output') {
        if (o.quiet) return;
        // A lone CR (progress bars redrawing a line) becomes a line end: logs hold lines.
        // A CR at the end of a chunk waits: the next chunk may start with its LF.
        let text = stripControl(e.text);
        if (pendingCR && !text.startsWith('\n')) text = `\n${text}`;
        pendingCR = text.endsWith('\r');
        if (pendingCR) text = text.slice(0, -1);
        text = text.replace(/\r\n?/g, '\n');
        if (text === '') return;
        out.write(text);
        midLine = !text.endsWith('\n');
        return;
      }
      const text = describeEvent(e);
      if (text !== undefined) line(text);
    },
    note(text) {
      if (midLine) out.write('\n');
      midLine = false;
      out.write(`${text}\n`);
    },
    close() {
      if (midLine) out.write('\n');
      midLine = false;
    },
  };
}
