// One conversation with the model, and how each request is built from it. Prompt caching: the
// stable prefix (tools, then the system prompt = ralph's instructions, then the plan as the first
// user block) is marked once, and the tail (the last block of the last message) on every request,
// so each request reads the previous one's cache. That is at most 3 breakpoints (the API allows 4).
import type {
  ContentBlock,
  ContentBlockParam,
  MessageCreateParamsBase,
  MessageParam,
  TextBlockParam,
  ToolResultBlockParam,
  ToolUnion,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { Prompt } from '../types.js';
import { INTERRUPTED_TOOL } from './notes.js';

const EPHEMERAL = { type: 'ephemeral' } as const;
export const MAX_CACHE_BREAKPOINTS = 4;

type CacheableBlock = ContentBlockParam & { cache_control?: unknown };

const CACHEABLE_TYPES = new Set(['text', 'tool_use', 'tool_result', 'image', 'document']);

export interface RequestSettings {
  model: string;
  maxTokens: number;
  tools: ToolUnion[];
}

export class Conversation {
  readonly messages: MessageParam[] = [];

  private constructor(readonly instructions: string) {}

  /** A new conversation whose first user message is the prompt: the plan (cached), then the message. */
  static start(prompt: Prompt): Conversation {
    const c = new Conversation(prompt.instructions);
    const content: TextBlockParam[] = [];
    if (prompt.plan.trim() !== '') content.push({ type: 'text', text: prompt.plan, cache_control: EPHEMERAL });
    if (prompt.message.trim() !== '') content.push({ type: 'text', text: prompt.message });
    if (content.length === 0) {
      // Nothing split out: send the prompt as one text (the API refuses empty text blocks).
      content.push({ type: 'text', text: prompt.text.trim() !== '' ? prompt.text : prompt.instructions || '(empty prompt)' });
    }
    c.messages.push({ role: 'user', content });
    return c;
  }

  get last(): MessageParam | undefined {
    return this.messages.at(-1);
  }

  /** The next user turn; merged into the last message when that is already a user message. */
  appendUserText(text: string): void {
    this.closeDanglingToolUses(INTERRUPTED_TOOL);
    const block: TextBlockParam = { type: 'text', text };
    const last = this.last;
    if (last && last.role === 'user') {
      (last.content as ContentBlockParam[]).push(block);
    } else {
      this.messages.push({ role: 'user', content: [block] });
    }
  }

  appendAssistant(content: ContentBlock[]): void {
    if (content.length === 0) return; // the API refuses an empty assistant turn
    this.messages.push({ role: 'assistant', content: content as unknown as ContentBlockParam[] });
  }

  appendToolResults(results: ToolResultBlockParam[]): void {
    if (results.length > 0) this.messages.push({ role: 'user', content: results });
  }

  /** tool_use ids of the last assistant message that no user message answered yet. */
  pendingToolUseIds(): string[] {
    const last = this.last;
    if (!last || last.role !== 'assistant' || typeof last.content === 'string') return [];
    return last.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
  }

  /** Every tool_use needs a tool_result in the next message, or the API refuses the conversation. */
  closeDanglingToolUses(note: string): void {
    const ids = this.pendingToolUseIds();
    this.appendToolResults(ids.map((id) => ({ type: 'tool_result', tool_use_id: id, content: note, is_error: true })));
  }
}

function withCacheControl(block: ContentBlockParam): ContentBlockParam {
  return { ...block, cache_control: EPHEMERAL } as ContentBlockParam;
}

function cacheable(block: ContentBlockParam): boolean {
  if (!CACHEABLE_TYPES.has(block.type)) return false;
  return block.type !== 'text' || block.text !== '';
}

/** The request body for the conversation as it stands (the stream flag is added by the SDK helper). */
export function buildRequest(conversation: Conversation, settings: RequestSettings): MessageCreateParamsBase {
  const messages = conversation.messages.slice();
  const lastIndex = messages.length - 1;
  const last = messages[lastIndex];
  if (last && typeof last.content !== 'string') {
    const content = last.content.slice();
    for (let i = content.length - 1; i >= 0; i--) {
      const block = content[i]!;
      if (!cacheable(block)) continue;
      if ((block as CacheableBlock).cache_control) break; // already a breakpoint (the plan block)
      content[i] = withCacheControl(block);
      break;
    }
    messages[lastIndex] = { ...last, content } as MessageParam;
  }
  const body: MessageCreateParamsBase = {
    model: settings.model,
    max_tokens: settings.maxTokens,
    tools: settings.tools,
    messages,
  };
  if (conversation.instructions.trim() !== '') {
    body.system = [{ type: 'text', text: conversation.instructions, cache_control: EPHEMERAL }];
  }
  return body;
}

/** How many cache breakpoints a request body carries (the API refuses more than 4). */
export function countBreakpoints(body: { system?: unknown; messages: MessageParam[]; tools?: unknown[] }): number {
  let n = 0;
  const visit = (blocks: unknown): void => {
    if (!Array.isArray(blocks)) return;
    for (const b of blocks) if (b && typeof b === 'object' && 'cache_control' in b && (b as { cache_control: unknown }).cache_control) n++;
  };
  visit(body.system);
  visit(body.tools);
  for (const m of body.messages) visit(m.content);
  return n;
}
