// stdout of a JSON stream format, from bytes to events: bounded lines, each logged raw for the
// transcript, then parsed and handed to the format's decoder. Anything odd (a line that is not
// JSON, a line too long to keep) is logged or counted and reported, never thrown.
import type { ExecutorEvent } from '../types.js';
import { LineSplitter, type SplitItem } from './line-splitter.js';
import type { StreamDecoder } from './stream-decoder.js';
import { WARNING_MAX, bounded, oneLine, parseObject } from './untrusted.js';

/** A JSON event line longer than this is dropped (tool results can carry whole files). */
export const MAX_JSON_LINE_BYTES = 16 * 1024 * 1024;

export class JsonEventStream {
  private readonly lines: LineSplitter;
  private warnedNotJson = false;

  constructor(
    private readonly decoder: StreamDecoder,
    private readonly maxLineBytes = MAX_JSON_LINE_BYTES,
  ) {
    this.lines = new LineSplitter(maxLineBytes);
  }

  /** Events for one stdout chunk; never empty, since every byte is proof of life. */
  push(chunk: Buffer): ExecutorEvent[] {
    const out = this.read(this.lines.push(chunk));
    if (out.length === 0) out.push({ type: 'activity' });
    return out;
  }

  /** Events for a last line without a line end. */
  end(): ExecutorEvent[] {
    const out = this.read(this.lines.end());
    try {
      out.push(...(this.decoder.end?.() ?? []));
    } catch (error) {
      out.push({ type: 'warning', message: bounded(`${this.decoder.format}: could not finish the stream: ${String(error)}`, WARNING_MAX) });
    }
    return out;
  }

  private read(items: SplitItem[]): ExecutorEvent[] {
    const out: ExecutorEvent[] = [];
    for (const item of items) {
      if (item.kind === 'dropped') {
        out.push({
          type: 'warning',
          message: `${this.decoder.format}: dropped a stdout line of ${item.bytes} bytes (over the ${this.maxLineBytes}-byte limit); it is neither logged nor read`,
        });
        continue;
      }
      out.push({ type: 'log', stream: 'stdout', chunk: item.bytes });
      this.decodeLine(item.bytes, out);
    }
    return out;
  }

  private decodeLine(bytes: Buffer, out: ExecutorEvent[]): void {
    const text = bytes.toString('utf8').trim();
    if (text === '') return;
    const event = parseObject(text);
    if (!event) {
      if (!this.warnedNotJson) {
        this.warnedNotJson = true;
        out.push({
          type: 'warning',
          message: bounded(
            `${this.decoder.format}: a stdout line is not a JSON event (logged, not read; further ones are not reported this iteration): ${oneLine(text, 120)}`,
            WARNING_MAX,
          ),
        });
      }
      return;
    }
    try {
      out.push(...this.decoder.decode(event));
    } catch (error) {
      // Decoders check every field; this is the last guard so that odd agent output never stops a run.
      out.push({ type: 'warning', message: bounded(`${this.decoder.format}: could not read an event: ${String(error)}`, WARNING_MAX) });
    }
  }
}
