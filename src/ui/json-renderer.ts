import type { RunEvent } from '../loop/events.js';
import type { Renderer, RendererOptions } from './renderer.js';
import { safeJson } from './sanitize.js';


/** --json: every event as one JSON object a line on stdout, and nothing else there. */
export function jsonRenderer(o: RendererOptions): Renderer {
  const now = o.clock ?? (() => new Date());
  return {
    onEvent(e: RunEvent) {
      if (o.quiet && e.type === 'output') return;
      o.stdout.write(`${safeJson({ at: now().toISOString(), ...e })}\n`);
    },
    note(text) {
      o.stderr.write(`${text}\n`);
    },
    close() {},
  };
}
