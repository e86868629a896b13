import type { RunEvent } from '../loop/events.js';
import { describeEvent } from './describe-event.js';
import { displayBudget } from './display-budget.js';
import type { Renderer, RendererOptions } from './renderer.js';
import { stripControl } from './sanitize.js';

/**
 * Without a terminal: timestamped lines, the agent's output in between, never a control
 * sequence. Like every human-readable line of ralph's, they go to stderr (docs/first-hour.md);
 * stdout is for what scripts read. Behind a slow reader the agent's output is dropped with a
 * note, never ralph's own lines (docs/hostile.md).
 */
export function plainRenderer(o: RendererOptions): Renderer {
  const now = o.clock ?? (() => new Date());
  const out = o.stderr;
  let midLine = false;
  let pendingCR = false;
  // The run's last lines (the outcome, where the results are) wait for close(): warnings of the
  // notifications flushed after the run ended come before them, so nothing follows them.
  let last: string | undefined;
  const budget = displayBudget(out);
  const endLine = () => {
    if (midLine) out.write('\n');
    midLine = false;
  };
  const noteDropped = (final = false) => {
    const dropped = budget.note(final);
    if (dropped === undefined) return;
    endLine();
    out.write(`${dropped}\n`);
  };
  const line = (text: string) => {
    noteDropped();
    endLine();
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
        if (!budget.admit(text.length)) return;
        noteDropped();
        out.write(text);
        midLine = !text.endsWith('\n');
        return;
      }
      const text = describeEvent(e);
      if (text === undefined) return;
      if (e.type === 'run-end') last = text;
      else line(text);
    },
    note(text) {
      endLine();
      out.write(`${text}\n`);
    },
    close() {
      endLine();
      noteDropped(true);
      if (last !== undefined) line(last);
      last = undefined;
    },
  };
}
