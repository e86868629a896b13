import { describe, expect, it } from 'vitest';
import { Conversation, buildRequest, countBreakpoints, MAX_CACHE_BREAKPOINTS } from '../../../src/executors/anthropic/conversation.js';
import { TOOL_DEFINITIONS } from '../../../src/executors/anthropic/tools/tool-runner.js';
import { makePrompt } from './helpers.js';

const settings = { model: 'm', maxTokens: 100, tools: TOOL_DEFINITIONS };
const EPH = { type: 'ephemeral' };

describe('building requests', () => {
  it('puts the plan first and marks system, plan and tail', () => {
    const conv = Conversation.start(makePrompt('Do it.'));
    const body = buildRequest(conv, settings);
    expect(body.system).toEqual([{ type: 'text', text: makePrompt().instructions, cache_control: EPH }]);
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: makePrompt().plan, cache_control: EPH },
          { type: 'text', text: 'Do it.', cache_control: EPH },
        ],
      },
    ]);
    // The stored conversation is not changed by building a request from it.
    expect((conv.messages[0]!.content as { cache_control?: unknown }[])[1]!.cache_control).toBeUndefined();
  });

  it('never exceeds the breakpoint limit as the conversation grows', () => {
    const conv = Conversation.start(makePrompt());
    for (let i = 0; i < 20; i++) {
      conv.appendAssistant([{ type: 'tool_use', id: `t${i}`, name: 'bash', input: {}, caller: { type: 'direct' } } as never]);
      conv.appendToolResults([{ type: 'tool_result', tool_use_id: `t${i}`, content: 'ok' }]);
      const body = buildRequest(conv, settings);
      expect(countBreakpoints(body)).toBeLessThanOrEqual(MAX_CACHE_BREAKPOINTS);
      expect(countBreakpoints(body)).toBe(3);
    }
  });

  it('skips empty parts of the prompt and never sends an empty text', () => {
    const conv = Conversation.start({ instructions: '', plan: '', message: '', text: 'all of it' });
    const body = buildRequest(conv, settings);
    expect(body.system).toBeUndefined();
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'all of it', cache_control: EPH }] }]);
  });

  it('answers tool calls left without results before the next user text', () => {
    const conv = Conversation.start(makePrompt());
    conv.appendAssistant([{ type: 'tool_use', id: 'a', name: 'bash', input: {} } as never, { type: 'tool_use', id: 'b', name: 'bash', input: {} } as never]);
    conv.appendUserText('Continue.');
    const last = conv.messages.at(-1)!;
    expect(last.role).toBe('user');
    expect(last.content).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: expect.any(String), is_error: true },
      { type: 'tool_result', tool_use_id: 'b', content: expect.any(String), is_error: true },
      { type: 'text', text: 'Continue.' },
    ]);
  });

  it('merges a continuation into a user message that was never answered', () => {
    const conv = Conversation.start(makePrompt('First.'));
    conv.appendUserText('Second.');
    expect(conv.messages).toHaveLength(1);
    expect((conv.messages[0]!.content as { text: string }[]).map((b) => b.text)).toEqual([makePrompt().plan, 'First.', 'Second.']);
  });
});
