import type { RunEvent } from '../loop/events.js';
import type { Renderer, RendererOptions } from './renderer.js';
import { displayBudget } from './display-budget.js';
import { safeJson } from './sanitize.js';


/** --json: every event as one JSON object a line on stdout, and nothing else there. */
export function jsonRenderer(o: RendererOptions): Renderer {
  const now = o.clock ?? (() => new Date());
  // stdout holds events only: the note about agent output dropped behind a slow reader goes to stderr.
  const budget = displayBudget(o.stdout);
  return {
    onEvent(e: RunEvent) {
      if (o.quiet && e.type === 'output') return;
      if (e.type === 'output' && !budget.admit(e.text.length)) return;
      const dropped = budget.note();
      if (dropped !== undefined) o.stderr.write(`${dropped}\n`);
      o.stdout.write(`${safeJson({ at: now().toISOString(), ...e })}\n`);
    },
    note(text) {
      o.stderr.write(`${text}\n`);
    },
    close() {
      const dropped = budget.note(true);
      if (dropped !== undefined) o.stderr.write(`${dropped}\n`);
    },
  };
}
