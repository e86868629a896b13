import type { RunEvent } from '../loop/events.js';
import type { Renderer, RendererOptions } from './renderer.js';

// JSON.stringify escapes only C0 controls; DEL, C1 (U+009B starts an escape sequence on some
// terminals) and the two line separators are escaped too, so a line is safe to print anywhere.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u007f-\u009f\u2028\u2029]/g;
const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** --json: every event as one JSON object a line on stdout, and nothing else there. */
export function jsonRenderer(o: RendererOptions): Renderer {
  const now = o.clock ?? (() => new Date());
  return {
    onEvent(e: RunEvent) {
      if (o.quiet && e.type === 'output') return;
      o.stdout.write(`${JSON.stringify({ at: now().toISOString(), ...e }).replace(UNSAFE, escape)}\n`);
    },
    note(text) {
      o.stderr.write(`${text}\n`);
    },
    close() {},
  };
}
