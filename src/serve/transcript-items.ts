// A transcript (iterations/<n>.log) as a person reads it, for the page and `ralph logs`: the
// agent's own words apart from its tool calls and their output. The log holds what the agent
// wrote as it came; a JSON stream format's lines go through the same decoder the run used, so
// what is shown as words is what ralph read as words. Memory stays flat whatever the agent
// wrote: a line is held only up to a bound (a longer one becomes a note saying how long it was),
// and every item's text is cut to a bound.
import { LineSplitter } from '../executors/command/line-splitter.js';
import { decoderFor, newFormatMemory } from '../executors/command/formats.js';
import type { StreamDecoder } from '../executors/command/stream-decoder.js';
import { parseObject } from '../executors/command/untrusted.js';
import type { StreamFormat } from '../loop/types.js';
import { STREAM_FORMATS } from '../contract.js';
import { stripControl } from '../ui/sanitize.js';
import { toolLabel } from '../ui/tool-label.js';

export { toolLabel };

/** words: the agent's text; tool: a tool it called; output: anything else it printed; note: ralph's. */
export type TranscriptItemKind = 'words' | 'tool' | 'output' | 'note';

export interface TranscriptItem {
  kind: TranscriptItemKind;
  text: string;
}

/** A JSON event line longer than this is not decoded (tool results can carry whole files). */
const MAX_LINE_BYTES = 1024 * 1024;
/** What one item shows at most. */
const MAX_ITEM_CHARS = 4000;

export function cutText(text: string, max = MAX_ITEM_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max)} … (${text.length - max} more characters)`;
}

export function isStreamFormat(value: unknown): value is StreamFormat {
  return typeof value === 'string' && (STREAM_FORMATS as readonly string[]).includes(value);
}

export class TranscriptReader {
  private readonly lines = new LineSplitter(MAX_LINE_BYTES);
  private readonly decoder: StreamDecoder | undefined;

  constructor(format: StreamFormat = 'text') {
    this.decoder = decoderFor(format, newFormatMemory());
  }

  push(chunk: Buffer): TranscriptItem[] {
    return this.read(this.lines.push(chunk));
  }

  end(): TranscriptItem[] {
    return this.read(this.lines.end());
  }

  private read(items: ReturnType<LineSplitter['push']>): TranscriptItem[] {
    const out: TranscriptItem[] = [];
    for (const item of items) {
      if (item.kind === 'dropped') {
        out.push({ kind: 'note', text: `[a line of ${item.bytes} bytes, too long to show]` });
        continue;
      }
      const text = item.bytes.toString('utf8').replace(/\r?\n$/, '');
      if (this.decoder) this.decode(text, out);
      else if (text !== '') out.push({ kind: 'words', text: clean(text) });
    }
    return out;
  }

  private decode(text: string, out: TranscriptItem[]): void {
    const event = parseObject(text);
    // stderr shares the log with the JSON lines: shown as it is.
    if (!event) {
      if (text.trim() !== '') out.push({ kind: 'output', text: clean(text) });
      return;
    }
    let events: ReturnType<StreamDecoder['decode']> = [];
    try {
      events = this.decoder!.decode(event);
    } catch {
      return;
    }
    for (const e of events) {
      if (e.type === 'text') {
        const words = typeof e.chunk === 'string' ? e.chunk : e.chunk.toString('utf8');
        if (words.trim() !== '') out.push({ kind: 'words', text: clean(words.replace(/\n+$/, '')) });
      } else if (e.type === 'tool') {
        if (e.phase === 'call') out.push({ kind: 'tool', text: clean(toolLabel(e.name, e.summary)) });
        else if (e.error !== undefined) out.push({ kind: 'output', text: clean(`${e.name} failed: ${e.error}`) });
      } else if (e.type === 'log') {
        const logged = typeof e.chunk === 'string' ? e.chunk : e.chunk.toString('utf8');
        if (logged.trim() !== '') out.push({ kind: 'output', text: clean(logged.replace(/\n+$/, '')) });
      } else if (e.type === 'error' || e.type === 'limit') {
        out.push({ kind: 'note', text: clean(e.message) });
      }
    }
  }
}

function clean(text: string): string {
  return cutText(stripControl(text));
}
