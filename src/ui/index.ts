import { jsonRenderer } from './json-renderer.js';
import { plainRenderer } from './plain-renderer.js';
import type { Renderer, RendererOptions } from './renderer.js';
import { ttyRenderer } from './tty-renderer.js';

export type { Renderer, RendererOptions } from './renderer.js';
export { stripControl } from './sanitize.js';
export { describeEvent } from './describe-event.js';

export function createRenderer(o: RendererOptions): Renderer {
  if (o.json) return jsonRenderer(o);
  // Progress and diagnostics go to stderr: whether it is a terminal decides how they look.
  const tty = o.tty ?? o.stderr.isTTY === true;
  return tty ? ttyRenderer(o) : plainRenderer(o);
}

/** NO_COLOR (https://no-color.org) and a dumb terminal turn colour off. */
export function colorWanted(env: NodeJS.ProcessEnv): boolean {
  return !('NO_COLOR' in env && env.NO_COLOR !== '') && env.TERM !== 'dumb';
}
