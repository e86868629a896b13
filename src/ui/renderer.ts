// How a run is shown: a progress line on a TTY, plain timestamped lines otherwise, NDJSON with
// --json. A renderer only subscribes to events; nothing else prints.
import type { RunEvent } from '../loop/events.js';

export interface Renderer {
  onEvent(event: RunEvent): void;
  /** Something to say that is not an event (a usage error, a hint). */
  note(text: string): void;
  close(): void;
}

export interface RendererOptions {
  /** Only --json writes here (docs/first-hour.md). */
  stdout: NodeJS.WritableStream;
  /** ralph's own lines, the agent's output and the status line. */
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  json: boolean;
  quiet: boolean;
  /** Overrides stderr.isTTY (tests). */
  tty?: boolean;
  color: boolean;
  clock?: () => Date;
}
