import type { RunEvent } from '../loop/events.js';
import { describeEvent } from './describe-event.js';
import type { Renderer, RendererOptions } from './renderer.js';
import { displayBudget } from './display-budget.js';
import { stripControl } from './sanitize.js';

/** Without a TTY: timestamped lines, the agent's output in between, never a control sequence. */
export function plainRenderer(o: RendererOptions): Renderer {
  const now = o.clock ?? (() => new Date());
  let midLine = false;
  let pendingCR = false;
  const budget = displayBudget(o.stdout);
  const line = (text: string) => {
    const dropped = budget.note();
    if (dropped !== undefined) {
      if (midLine) o.stdout.write('\n');
      midLine = false;
      o.stdout.write(`${dropped}\n`);
    }
    if (midLine) o.stdout.write('\n');
    midLine = false;
    o.stdout.write(`[${now().toISOString().slice(11, 19)}] ralph: ${text}\n`);
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
        if (!budget.admit(text.length)) return;
        const dropped = budget.note();
        if (dropped !== undefined) o.stdout.write(`${midLine ? '\n' : ''}${dropped}\n`);
        o.stdout.write(text);
        midLine = !text.endsWith('\n');
        return;
      }
      const text = describeEvent(e);
      if (text !== undefined) line(text);
    },
    note(text) {
      o.stderr.write(`${text}\n`);
    },
    close() {
      if (midLine) o.stdout.write('\n');
      midLine = false;
      const dropped = budget.note(true);
      if (dropped !== undefined) o.stdout.write(`${dropped}\n`);
    },
  };
}
