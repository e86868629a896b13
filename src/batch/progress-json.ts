// --json: one NDJSON object per event on stdout, loop events tagged with `plan`, nothing else.
import { toJsonRecord } from './events.js';
import type { ProgressRenderer } from './progress.js';

export function createJsonProgress(out: NodeJS.WritableStream): ProgressRenderer {
  return {
    onEvent: (e) => void out.write(`${JSON.stringify(toJsonRecord(e))}\n`),
    stop: () => undefined,
  };
}
