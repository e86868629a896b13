// Plain timestamped lines for logs and cron mail: no control sequences.
import type { ProgressRenderer } from './progress.js';
import { describe } from './progress-line.js';

export function createPlainProgress(out: NodeJS.WritableStream, now: () => Date = () => new Date()): ProgressRenderer {
  return {
    onEvent: (e) => {
      const text = describe(e);
      if (text !== null) out.write(`${now().toISOString().slice(0, 19)}Z ${text}\n`);
    },
    stop: () => undefined,
  };
}
