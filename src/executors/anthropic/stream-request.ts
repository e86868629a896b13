// One streamed request: the model's text goes out as `text` events the moment its deltas arrive
// (the loop's signal parser reads them in-stream), each text block ending a line; anything else
// that arrives is proof of life (`activity`). Returns the complete message for the conversation.
// The raw event stream is read directly (not the SDK's MessageStream helper, which copies the
// message snapshot on every delta): see bench/anthropic-relay.bench.mjs.
import type Anthropic from '@anthropic-ai/sdk';
import { APIUserAbortError } from '@anthropic-ai/sdk';
import type { Message, MessageCreateParamsBase, MessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';
import { MessageAccumulator } from './message-accumulator.js';
import type { ExecutorEvent } from '../types.js';
import type { Redactor, StreamRedactor } from './redact.js';

// Tool inputs and thinking can stream for a long time without text: report life now and then,
// without one event per delta.
const ACTIVITY_EVERY = 64;

class TextTranslator {
  private readonly textBlocks = new Set<number>();
  private redactor: StreamRedactor | null = null;
  private endsWithNewline = true;
  private sawText = false;
  private quietDeltas = 0;

  constructor(
    private readonly redact: Redactor,
    private readonly emit: (e: ExecutorEvent) => void,
  ) {}

  private text(chunk: string): void {
    if (chunk === '') return;
    this.sawText = true;
    this.endsWithNewline = chunk.charCodeAt(chunk.length - 1) === 10;
    this.emit({ type: 'text', stream: 'stdout', chunk });
  }

  on(event: MessageStreamEvent): void {
    switch (event.type) {
      case 'content_block_start':
        if (event.content_block.type === 'text') {
          this.textBlocks.add(event.index);
          this.redactor = this.redact.stream();
          this.sawText = false;
          this.endsWithNewline = true;
          this.text(this.redactor.push(event.content_block.text));
        } else {
          this.emit({ type: 'activity' });
        }
        return;
      case 'content_block_delta':
        if (event.delta.type === 'text_delta' && this.textBlocks.has(event.index) && this.redactor) {
          this.text(this.redactor.push(event.delta.text));
        } else if (++this.quietDeltas % ACTIVITY_EVERY === 0) {
          this.emit({ type: 'activity' });
        }
        return;
      case 'content_block_stop':
        if (this.textBlocks.has(event.index) && this.redactor) {
          this.text(this.redactor.flush());
          // A text block ends a line, so a signal at its end is complete before tools run.
          if (this.sawText && !this.endsWithNewline) this.text('\n');
          this.redactor = null;
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
 * Adjacent text chunks that arrived together (one network read) go out as one chunk: the parser
 * and the loop pay per chunk, not per delta, and nothing waits longer than that read.
 */
function coalesce(events: ExecutorEvent[]): ExecutorEvent[] {
  if (events.length < 2) return events;
  const out: ExecutorEvent[] = [];
  let texts: string[] = [];
  const flush = (): void => {
    if (texts.length === 0) return;
    out.push({ type: 'text', stream: 'stdout', chunk: texts.length === 1 ? texts[0]! : texts.join('') });
    texts = [];
  };
  for (const e of events) {
    if (e.type === 'text' && typeof e.chunk === 'string') texts.push(e.chunk);
    else {
      flush();
      out.push(e);
    }
  }
  flush();
  return out;
}

export async function* streamRequest(
  client: Anthropic,
  body: MessageCreateParamsBase,
  signal: AbortSignal,
  redact: Redactor,
): AsyncGenerator<ExecutorEvent, Message, undefined> {
  const queue: ExecutorEvent[] = [];
  const translator = new TextTranslator(redact, (e) => queue.push(e));
  const accumulator = new MessageAccumulator();
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
      accumulator.add(event);
      translator.on(event);
      if (queue.length > 0) wake();
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
        for (const e of coalesce(queue.splice(0))) yield e;
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
