// Stream formats of agents the conformance suite does not run yet, read from their documented
// shapes (docs/agents.md): Gemini CLI, opencode, Cursor's agent; Qwen Code and Amp use the Claude
// decoder under their own names.
import { describe, expect, it } from 'vitest';
import { CursorStreamDecoder } from '../../../src/executors/command/cursor-stream.js';
import { decoderFor, newFormatMemory } from '../../../src/executors/command/formats.js';
import { GeminiStreamDecoder } from '../../../src/executors/command/gemini-stream.js';
import { JsonEventStream } from '../../../src/executors/command/json-stream.js';
import { OpencodeStreamDecoder } from '../../../src/executors/command/opencode-stream.js';
import type { StreamDecoder } from '../../../src/executors/command/stream-decoder.js';
import type { ExecutorEvent } from '../../../src/executors/types.js';
import { meaningful, textOf } from './helpers.js';

function decode(lines: unknown[], decoder: StreamDecoder): ExecutorEvent[] {
  const stream = new JsonEventStream(decoder);
  return meaningful([...stream.push(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n')), ...stream.end()]);
}

describe('gemini-json', () => {
  const t = '2026-11-25T10:00:00.000Z';
  it('joins the pieces of an assistant message; the echoed prompt and tool output are never text', () => {
    const events = decode(
      [
        { type: 'init', timestamp: t, session_id: 'g-1', model: 'gemini-2.5-pro' },
        { type: 'message', timestamp: t, role: 'user', content: 'ralph says: print ###PLAN_COMPLETE### when done' },
        { type: 'message', timestamp: t, role: 'assistant', content: 'Let me look.', delta: true },
        { type: 'tool_use', timestamp: t, tool_name: 'run_shell_command', tool_id: 't1', parameters: { command: 'cat notes' } },
        { type: 'tool_result', timestamp: t, tool_id: 't1', status: 'success', output: '###PLAN_COMPLETE###' },
        { type: 'message', timestamp: t, role: 'assistant', content: 'All done.\n###PLAN', delta: true },
        { type: 'message', timestamp: t, role: 'assistant', content: '_COMPLETE###', delta: true },
        { type: 'result', timestamp: t, status: 'success', stats: { total_tokens: 1700, input_tokens: 1500, output_tokens: 200, cached: 1000, input: 500, duration_ms: 9, tool_calls: 1 } },
      ],
      new GeminiStreamDecoder(),
    );
    expect(textOf(events)).toBe('Let me look.\nAll done.\n###PLAN_COMPLETE###\n');
    expect(events.filter((e) => e.type === 'tool')).toEqual([
      { type: 'tool', name: 'run_shell_command', summary: 'cat notes', phase: 'call' },
      { type: 'tool', name: 'run_shell_command', summary: 'cat notes' },
    ]);
    expect(events).toContainEqual({ type: 'session', id: 'g-1' });
    expect(events).toContainEqual({ type: 'usage', tokens: { input: 500, output: 200, cacheRead: 1000, cacheWrite: 0 }, costUsd: null });
  });

  it('a quota error is a usage limit; a warning stays a warning; a bad key is fatal', () => {
    const events = decode(
      [
        { type: 'error', timestamp: 't', severity: 'warning', message: 'loop detected' },
        { type: 'result', timestamp: 't', status: 'error', error: { type: 'FatalError', message: 'RESOURCE_EXHAUSTED: Quota exceeded for quota metric' } },
      ],
      new GeminiStreamDecoder(),
    );
    expect(events.map((e) => e.type)).toEqual(['warning', 'error', 'limit']);
    expect(events[2]).toMatchObject({ kind: 'usage' });
    const fatal = decode([{ type: 'error', timestamp: 't', severity: 'error', message: 'API key not valid. Please pass a valid API key.' }], new GeminiStreamDecoder());
    expect(fatal).toEqual([{ type: 'error', fatal: true, message: expect.stringContaining('API key not valid') }]);
  });
});

describe('opencode-json', () => {
  it('reads finished text parts, tools, tokens with cache and cost, and the session', () => {
    const events = decode(
      [
        { type: 'step_start', timestamp: 1, sessionID: 'ses_1', part: { type: 'step-start' } },
        { type: 'tool_use', timestamp: 2, sessionID: 'ses_1', part: { type: 'tool', tool: 'bash', callID: 'c1', state: { status: 'completed', input: { command: 'cat notes' }, output: '###PLAN_COMPLETE###' } } },
        { type: 'tool_use', timestamp: 2, sessionID: 'ses_1', part: { type: 'tool', tool: 'edit', callID: 'c2', state: { status: 'error', input: { filePath: 'a.ts' }, error: 'no such file' } } },
        { type: 'text', timestamp: 3, sessionID: 'ses_1', part: { type: 'text', text: 'Done.\n###PLAN_COMPLETE###' } },
        { type: 'step_finish', timestamp: 4, sessionID: 'ses_1', part: { type: 'step-finish', reason: 'stop', cost: 0.0304, tokens: { total: 8086, input: 3, output: 7, reasoning: 2, cache: { write: 8076, read: 10 } } } },
      ],
      new OpencodeStreamDecoder(),
    );
    expect(textOf(events)).toBe('Done.\n###PLAN_COMPLETE###\n');
    expect(events[0]).toEqual({ type: 'session', id: 'ses_1' });
    expect(events.filter((e) => e.type === 'tool')).toEqual([
      { type: 'tool', name: 'bash', summary: 'cat notes' },
      { type: 'tool', name: 'edit', summary: '{"filePath":"a.ts"}', error: 'no such file' },
    ]);
    expect(events).toContainEqual({ type: 'usage', tokens: { input: 3, output: 9, cacheRead: 10, cacheWrite: 8076 }, costUsd: 0.0304 });
  });

  it('errors: 401 fatal, 429 a rate limit, names the status', () => {
    const events = decode(
      [
        { type: 'error', timestamp: 1, sessionID: 's', error: { name: 'APIError', data: { message: 'Too Many Requests', statusCode: 429 } } },
        { type: 'error', timestamp: 1, sessionID: 's', error: { name: 'APIError', data: { message: 'invalid x-api-key', statusCode: 401 } } },
      ],
      new OpencodeStreamDecoder(),
    );
    expect(events.slice(1)).toEqual([
      { type: 'error', status: 429, message: 'opencode reported an error (HTTP 429): Too Many Requests', limit: true },
      { type: 'limit', kind: 'rate', message: 'opencode reported an error (HTTP 429): Too Many Requests' },
      { type: 'error', status: 401, fatal: true, message: 'opencode reported an error (HTTP 401): invalid x-api-key' },
    ]);
  });
});

describe('cursor-json', () => {
  it('Claude shapes plus tool_call started/completed; no usage', () => {
    const events = decode(
      [
        { type: 'system', subtype: 'init', session_id: 'chat-1', model: 'composer' },
        { type: 'user', message: { role: 'user', content: [{ type: 'text', text: '###PLAN_COMPLETE### (the prompt)' }] } },
        { type: 'tool_call', subtype: 'started', call_id: 'c1', tool_call: { shellToolCall: { args: { command: 'cat notes' } } } },
        { type: 'tool_call', subtype: 'completed', call_id: 'c1', tool_call: { shellToolCall: { args: { command: 'cat notes' }, result: { success: { stdout: '###PLAN_COMPLETE###' } } } } },
        { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'Finished.' }] } },
        { type: 'result', subtype: 'success', is_error: false, result: 'Finished.', session_id: 'chat-1' },
      ],
      new CursorStreamDecoder(),
    );
    expect(textOf(events)).toBe('Finished.\n');
    expect(events.filter((e) => e.type === 'tool')).toEqual([
      { type: 'tool', name: 'shell', summary: 'cat notes', phase: 'call' },
      { type: 'tool', name: 'shell', summary: 'cat notes' },
    ]);
    expect(events).toContainEqual({ type: 'session', id: 'chat-1' });
  });
});

describe('claude-json limits', () => {
  it('rate_limit_event: rejected is a usage limit with its reset time; allowed is nothing', () => {
    const info = (status: string) => ({ type: 'rate_limit_event', rate_limit_info: { status, resetsAt: 1771390800, rateLimitType: 'five_hour', overageStatus: 'rejected', isUsingOverage: false }, session_id: 's' });
    const events = decode([info('allowed'), info('allowed_warning'), info('rejected')], decoderFor('claude-json', newFormatMemory())!);
    expect(events).toEqual([{ type: 'limit', kind: 'usage', message: 'claude: usage limit reached (five_hour)', resetsAt: 1771390800_000 }]);
  });

  it('a 429 result that says how long to wait keeps the wait: a rate limit with retryAfterMs, as the other formats give it', () => {
    const events = decode([{ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: 'API Error: 429 rate limit exceeded, try again in 20s', usage: {} }], decoderFor('claude-json', newFormatMemory())!);
    expect(events.filter((e) => e.type === 'limit')).toEqual([{ type: 'limit', kind: 'rate', message: expect.any(String), retryAfterMs: 20_000 }]);
  });

  it('a result "You\'ve hit your limit · resets 3am" without an API status is a usage limit too', () => {
    const events = decode([{ type: 'result', subtype: 'success', is_error: true, result: "You've hit your limit · resets 3am (UTC)", usage: {} }], decoderFor('claude-json', newFormatMemory())!);
    expect(events.filter((e) => e.type === 'limit')).toEqual([
      { type: 'limit', kind: 'usage', message: "claude reported an error: You've hit your limit · resets 3am (UTC)", resetsAt: expect.any(Number), resetFromWords: true },
    ]);
    expect(events).toContainEqual({ type: 'error', message: "claude reported an error: You've hit your limit · resets 3am (UTC)", limit: true });
  });
});

describe('Claude-compatible formats under their own names', () => {
  it("qwen-json: after --resume Qwen Code's result holds the session's running total; each iteration counts its own share", () => {
    const memory = newFormatMemory();
    const result = (session: string, input: number, output: number) => ({ type: 'result', subtype: 'success', is_error: false, session_id: session, usage: { input_tokens: input, output_tokens: output } });
    const usage = (events: ReturnType<typeof decode>) => events.filter((e) => e.type === 'usage').map((e) => (e as { tokens: unknown }).tokens);
    // The first iteration, then the same session resumed: 7,500 in all, of which 4,500 are new.
    expect(usage(decode([result('s1', 3000, 100)], decoderFor('qwen-json', memory)!))).toEqual([{ input: 3000, output: 100, cacheRead: 0, cacheWrite: 0 }]);
    expect(usage(decode([result('s1', 7500, 250)], decoderFor('qwen-json', memory)!))).toEqual([{ input: 4500, output: 150, cacheRead: 0, cacheWrite: 0 }]);
    // A fresh session starts its own total; a total below the last is a new session under an old id, taken whole.
    expect(usage(decode([result('s2', 2000, 50)], decoderFor('qwen-json', memory)!))).toEqual([{ input: 2000, output: 50, cacheRead: 0, cacheWrite: 0 }]);
    expect(usage(decode([result('s1', 1000, 10)], decoderFor('qwen-json', memory)!))).toEqual([{ input: 1000, output: 10, cacheRead: 0, cacheWrite: 0 }]);
    // Claude Code's result is per run: never reduced.
    const claudeMemory = newFormatMemory();
    decode([result('s1', 3000, 100)], decoderFor('claude-json', claudeMemory)!);
    expect(usage(decode([result('s1', 7500, 250)], decoderFor('claude-json', claudeMemory)!))).toEqual([{ input: 7500, output: 250, cacheRead: 0, cacheWrite: 0 }]);
  });

  it("qwen-json: Qwen Code's input_tokens include the cache reads (as Qwen Code 0.24.4 printed them); Claude's do not", () => {
    const result = { type: 'result', subtype: 'success', is_error: false, usage: { input_tokens: 4500, output_tokens: 180, cache_read_input_tokens: 3000, total_tokens: 4680 } };
    const qwen = decode([result], decoderFor('qwen-json', newFormatMemory())!);
    expect(qwen).toContainEqual({ type: 'usage', tokens: { input: 1500, output: 180, cacheRead: 3000, cacheWrite: 0 }, costUsd: null });
    const claude = decode([result], decoderFor('claude-json', newFormatMemory())!);
    expect(claude).toContainEqual({ type: 'usage', tokens: { input: 4500, output: 180, cacheRead: 3000, cacheWrite: 0 }, costUsd: null });
  });

  it.each([
    ['qwen-json', 'qwen'],
    ['amp-json', 'amp'],
  ] as const)('%s names %s in what it reports', (format, agent) => {
    const decoder = decoderFor(format, newFormatMemory())!;
    expect(decoder.format).toBe(format);
    const events = decode([{ type: 'result', subtype: 'error_during_execution', is_error: true, error: { message: 'boom' }, usage: {} }], decoder);
    expect(events).toContainEqual({ type: 'error', message: `${agent} reported an error (error_during_execution): boom` });
  });
});
