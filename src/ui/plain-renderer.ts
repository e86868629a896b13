import type { RunEvent } from '../loop/events.js';
import { describeEvent } from './describe-event.js';
import type { Renderer, RendererOptions } from './renderer.js';
import { stripControl } from './sanitize.js';

/** Without a TTY: timestamped lines, the agent's output in between, never a control sequence. */
export function plainRenderer(o: RendererOptions): Renderer {
  const now = o.clock ?? (() => new Date());
  let midLine = false;
  const line = (text: string) => {
    if (midLine) o.stdout.write('\n');
    midLine = false;
    o.stdout.write(`[${now().toISOString().slice(11, 19)}] ralph: ${text}\n`);
  };
  return {
    onEvent(e: RunEvent) {
      if (e.type === 'output') {
        if (o.quiet) return;
        const text = stripControl(e.text);
        if (text === '') return;
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
    },
  };
}
