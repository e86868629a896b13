// How a batch shows itself: live lines on a terminal (stderr), plain timestamped lines otherwise, NDJSON
// with --json. Renderers only subscribe to BatchEvents; the batch itself never prints.
export interface ProgressRenderer {
  onEvent(e: import('./events.js').BatchEvent): void;
  /** Leaves the terminal as it found it. */
  stop(): void;
}
export { createPlainProgress } from './progress-plain.js';
export { createTtyProgress } from './progress-tty.js';
export { createJsonProgress } from './progress-json.js';
