// One streamed request: the model's text goes out as `text` events as its deltas arrive (the
// loop's signal parser reads them in-stream), each text block ending a line; anything else that
// arrives is proof of life (`activity`). Returns the complete message for the conversation.
//
// Cost (bench/anthropic-relay.bench.mjs): the raw event stream is read directly (the SDK's
// MessageStream helper copies its message snapshot on every delta), and text is handled per
// network read, not per delta: deltas are queued as bare strings, and the consumer, woken once per
// I/O turn, joins and scrubs each run of them once — that one string is both the emitted chunk and
// the piece the message's text block is built from.
import type Anthropic from '@anthropic-ai/sdk';
import { APIUserAbortError } from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsBase, MessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ExecutorEvent } from '../types.js';
import { MessageAccumulator } from './message-accumulator.js';
import type { Redactor, StreamRedactor } from './redact.js';

// Tool inputs and thinking can stream for a long time without text: report life now and then,
// without one event per delta.
const ACTIVITY_EVERY = 64;

/** Queued when a text block starts or ends (a block's text is joined, scrubbed and ended here). */
class TextBlockMark {
  constructor(
    readonly index: number,
    readonly end: boolean,
  ) {}
}

type Queued = string | ExecutorEvent | TextBlockMark;

/** Turns stream events into queue items: a text block's deltas as bare strings, the rest as events. */
class Translator {
  /** Index of the text block being streamed, -1 when none is. */
  private textIndex = -1;
  private quietDeltas = 0;

  constructor(private readonly queue: Queued[]) {}

  on(event: MessageStreamEvent): void {
    switch (event.type) {
      case 'content_block_delta':
        if (event.index === this.textIndex && event.delta.type === 'text_delta') {
          if (event.delta.text !== '') this.queue.push(event.delta.text);
        } else if (++this.quietDeltas % ACTIVITY_EVERY === 0) {
          this.queue.push({ type: 'activity' });
        }
        return;
      case 'content_block_start':
        if (event.content_block.type === 'text') {
          this.textIndex = event.index;
          this.queue.push(new TextBlockMark(event.index, false));
          if (event.content_block.text !== '') this.queue.push(event.content_block.text);
        } else {
          this.queue.push({ type: 'activity' });
        }
        return;
      case 'content_block_stop':
        if (event.index === this.textIndex) {
          this.queue.push(new TextBlockMark(event.index, true));
          this.textIndex = -1;
        }
        return;
      case 'message_start':
      case 'message_delta':
      case 'message_stop':
        return;
      default: {
        const never: never = event;
        void never;
      }
    }
  }
}

/**
 * Drains queued items into events. Each run of text deltas is joined once and scrubbed of the key
 * once (a key split across runs is still caught: see redact.ts); that one string is both what goes
 * out and a piece of the text block kept for the conversation.
 */
class Batcher {
  private pieces: string[] = [];
  private redactor: StreamRedactor | null = null;
  private lastPiece = '';

  constructor(
    private readonly redact: Redactor,
    private readonly accumulator: MessageAccumulator,
  ) {}

  private piece(text: string, out: string[]): void {
    if (text === '') return;
    this.pieces.push(text);
    this.lastPiece = text;
    out.push(text);
  }

  *drain(items: Queued[]): Generator<ExecutorEvent> {
    let out: string[] = [];
    let runStart = -1;
    const closeRun = (end: number): void => {
      if (runStart < 0) return;
      const joined =
        end - runStart === 1
          ? (items[runStart] as string)
          : (runStart === 0 && end === items.length ? items : items.slice(runStart, end)).join('');
      runStart = -1;
      // Text outside a text block (a delta for another index) is never queued, so a redactor exists.
      this.piece(this.redactor ? this.redactor.push(joined) : this.redact.scrub(joined), out);
    };
    const flushText = (): ExecutorEvent | null => {
      if (out.length === 0) return null;
      const chunk = out.length === 1 ? out[0]! : out.join('');
      out = [];
      return { type: 'text', stream: 'stdout', chunk };
    };
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (typeof item === 'string') {
        if (runStart < 0) runStart = i;
        continue;
      }
      closeRun(i);
      if (item instanceof TextBlockMark) {
        if (!item.end) {
          this.redactor = this.redact.stream();
          this.pieces = [];
          this.lastPiece = '';
          continue;
        }
        if (this.redactor) this.piece(this.redactor.flush(), out);
        const pieces = this.pieces;
        this.accumulator.setText(item.index, pieces.length === 1 ? pieces[0]! : pieces.join(''));
        // A text block ends a line, so a signal at its end is complete before tools run.
        const last = this.lastPiece;
        if (last !== '' && last.charCodeAt(last.length - 1) !== 10) out.push('\n');
        this.pieces = [];
        this.redactor = null;
        continue;
      }
      const text = flushText();
      if (text) yield text;
      yield item;
    }
    closeRun(items.length);
    const text = flushText();
    if (text) yield text;
  }
}

export async function* streamRequest(
  client: Anthropic,
  body: MessageCreateParamsBase,
  signal: AbortSignal,
  redact: Redactor,
): AsyncGenerator<ExecutorEvent, Message, undefined> {
  const queue: Queued[] = [];
  const translator = new Translator(queue);
  const accumulator = new MessageAccumulator();
  const batcher = new Batcher(redact, accumulator);
  const local = new AbortController();
  const onAbort = (): void => local.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  if (signal.aborted) local.abort();

  let waiting: (() => void) | null = null;
  let wakeScheduled = false;
  // The consumer is woken after the current I/O turn, so all deltas of one network read are
  // handed over together instead of one async hop per delta.
  const wake = (): void => {
    if (!waiting || wakeScheduled) return;
    wakeScheduled = true;
    setImmediate(() => {
      wakeScheduled = false;
      const w = waiting;
      waiting = null;
      w?.();
    });
  };

  let done = false;
  let failure: { error: unknown } | null = null;
  const pump = (async () => {
    // The SDK retries the request itself (before the first byte); the stream is read as it arrives.
    const stream = await client.messages.create({ ...body, stream: true }, { signal: local.signal });
    for await (const event of stream) {
      // Text deltas are most of a stream, and only the relay needs them (see setText).
      if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') translator.on(event);
      else {
        accumulator.add(event);
        translator.on(event);
      }
      if (waiting !== null && queue.length > 0) wake();
    }
  })().then(
    () => {
      done = true;
      wake();
    },
    (error: unknown) => {
      failure = { error };
      done = true;
      wake();
    },
  );

  try {
    for (;;) {
      if (queue.length > 0) {
        yield* batcher.drain(queue.splice(0));
        continue;
      }
      if (done) break;
      await new Promise<void>((resolve) => {
        waiting = resolve;
      });
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // The consumer stopped early: do not leave the request running.
    if (!done) {
      local.abort();
      await pump;
    }
  }
  if (failure) throw (failure as { error: unknown }).error;
  // A stream that ends without error but before its end (cut by a proxy, or aborted) is no reply.
  const message = accumulator.result();
  if (!message || message.stop_reason === null) {
    if (signal.aborted) throw new APIUserAbortError();
    throw new Error('the response stream ended before the message was complete');
  }
  return message;
}
