// Builds the complete assistant message from the raw stream events. The SDK's MessageStream does
// this too, but copies the block on every delta; here the deltas of a block are kept in groups and
// joined once when the block stops, which keeps a long answer's cost linear and small. The text of
// text blocks is set from outside (setText), by the relay that reads it anyway.
import type { ContentBlock, Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';

interface OpenBlock {
  block: ContentBlock;
  json: Pieces;
  thinking: Pieces;
}

// Deltas are joined in groups as they come: thousands of tiny strings kept alive until the block
// ends would be promoted by the garbage collector and cost more than the joins.
const GROUP = 256;

class Pieces {
  private small: string[] = [];
  private readonly groups: string[] = [];

  push(piece: string): void {
    this.small.push(piece);
    if (this.small.length >= GROUP) {
      this.groups.push(this.small.join(''));
      this.small = [];
    }
  }

  get empty(): boolean {
    return this.small.length === 0 && this.groups.length === 0;
  }

  join(): string {
    if (this.small.length) this.groups.push(this.small.join(''));
    this.small = [];
    return this.groups.join('');
  }
}

export class MessageAccumulator {
  private message: Message | null = null;
  private readonly open = new Map<number, OpenBlock>();
  private content: ContentBlock[] = [];

  private lastIndex = -1;
  private last: OpenBlock | undefined;

  private lookup(index: number): OpenBlock | undefined {
    this.lastIndex = index;
    this.last = this.open.get(index);
    return this.last;
  }

  add(event: RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.message = { ...event.message, usage: { ...event.message.usage }, content: [] };
        this.content = [...event.message.content];
        return;
      case 'content_block_start':
        this.lastIndex = -1;
        this.open.set(event.index, { block: { ...event.content_block } as ContentBlock, json: new Pieces(), thinking: new Pieces() });
        return;
      case 'content_block_delta': {
        // Deltas come block after block: the last block looked up is almost always the one.
        const open = event.index === this.lastIndex ? this.last : this.lookup(event.index);
        if (!open) return;
        const d = event.delta;
        switch (d.type) {
          case 'text_delta':
            return; // text arrives through setText(), joined once per network read
          case 'input_json_delta':
            open.json.push(d.partial_json);
            return;
          case 'thinking_delta':
            open.thinking.push(d.thinking);
            return;
          case 'signature_delta':
            if (open.block.type === 'thinking') open.block.signature = d.signature;
            return;
          case 'citations_delta':
            if (open.block.type === 'text') open.block.citations = [...(open.block.citations ?? []), d.citation];
            return;
          default: {
            const never: never = d;
            void never;
            return;
          }
        }
      }
      case 'content_block_stop': {
        const open = this.open.get(event.index);
        if (!open) return;
        this.open.delete(event.index);
        this.lastIndex = -1;
        this.last = undefined;
        this.content[event.index] = this.close(open);
        return;
      }
      case 'message_delta': {
        if (!this.message) return;
        const { delta, usage } = event;
        this.message.stop_reason = delta.stop_reason;
        this.message.stop_sequence = delta.stop_sequence;
        if (delta.stop_details !== undefined) this.message.stop_details = delta.stop_details;
        if (delta.container != null) this.message.container = delta.container;
        // Usage counters here are whole-message totals, present only when they apply.
        const target = this.message.usage as unknown as Record<string, unknown>;
        for (const [k, v] of Object.entries(usage)) if (v != null) target[k] = v;
        return;
      }
      case 'message_stop':
        return;
      default: {
        const never: never = event;
        void never;
      }
    }
  }

  private close(open: OpenBlock): ContentBlock {
    const b = open.block;
    if (b.type === 'thinking' && !open.thinking.empty) b.thinking = (b.thinking ?? '') + open.thinking.join();
    if ('input' in b && !open.json.empty) {
      const raw = open.json.join();
      try {
        (b as { input: unknown }).input = raw.trim() === '' ? {} : JSON.parse(raw);
      } catch {
        // Cut off (max_tokens): such a call is dropped, never run; {} keeps the block well-formed.
        (b as { input: unknown }).input = {};
      }
    }
    return b;
  }

  /**
   * The whole text of a text block. The stream's text is read once, by whoever relays it (already
   * scrubbed of the key), and handed over here instead of being collected a second time.
   */
  setText(index: number, text: string): void {
    const block = this.open.get(index)?.block ?? this.content[index];
    if (block && block.type === 'text') block.text = text;
  }

  /** The message so far; blocks still open (a cut stream) are closed as they stand. */
  result(): Message | null {
    if (!this.message) return null;
    for (const [index, open] of this.open) this.content[index] = this.close(open);
    this.open.clear();
    return { ...this.message, content: this.content.filter((b) => b !== undefined) };
  }
}
