// Builds the complete assistant message from the raw stream events. The SDK's MessageStream does
// this too, but copies the block on every delta; here the deltas of a block are kept in an array
// and joined once when the block stops, which keeps a long answer's cost linear and small.
import type { ContentBlock, Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages/messages';

interface OpenBlock {
  block: ContentBlock;
  text: string[];
  json: string[];
  thinking: string[];
}

export class MessageAccumulator {
  private message: Message | null = null;
  private readonly open = new Map<number, OpenBlock>();
  private content: ContentBlock[] = [];

  add(event: RawMessageStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.message = { ...event.message, usage: { ...event.message.usage }, content: [] };
        this.content = [...event.message.content];
        return;
      case 'content_block_start':
        this.open.set(event.index, { block: { ...event.content_block } as ContentBlock, text: [], json: [], thinking: [] });
        return;
      case 'content_block_delta': {
        const open = this.open.get(event.index);
        if (!open) return;
        const d = event.delta;
        switch (d.type) {
          case 'text_delta':
            open.text.push(d.text);
            return;
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
    if (b.type === 'text' && open.text.length) b.text = (b.text ?? '') + open.text.join('');
    if (b.type === 'thinking' && open.thinking.length) b.thinking = (b.thinking ?? '') + open.thinking.join('');
    if ('input' in b && open.json.length) {
      const raw = open.json.join('');
      try {
        (b as { input: unknown }).input = raw.trim() === '' ? {} : JSON.parse(raw);
      } catch {
        // Cut off (max_tokens): such a call is dropped, never run; {} keeps the block well-formed.
        (b as { input: unknown }).input = {};
      }
    }
    return b;
  }

  /** The message so far; blocks still open (a cut stream) are closed as they stand. */
  result(): Message | null {
    if (!this.message) return null;
    for (const [index, open] of this.open) this.content[index] = this.close(open);
    this.open.clear();
    return { ...this.message, content: this.content.filter((b) => b !== undefined) };
  }
}
