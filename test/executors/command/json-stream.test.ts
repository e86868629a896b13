import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ClaudeStreamDecoder } from '../../../src/executors/command/claude-stream.js';
import { CodexStreamDecoder } from '../../../src/executors/command/codex-stream.js';
import { JsonEventStream } from '../../../src/executors/command/json-stream.js';
import type { StreamDecoder } from '../../../src/executors/command/stream-decoder.js';
import type { ExecutorEvent } from '../../../src/executors/types.js';
import { logOf, meaningful, streamFixture, textOf } from './helpers.js';

function decode(data: Buffer, decoder: StreamDecoder, cuts: number[] = [data.length], maxLineBytes?: number) {
  const stream = new JsonEventStream(decoder, maxLineBytes);
  const events: ExecutorEvent[] = [];
  let at = 0;
  for (const cut of [...cuts, data.length]) {
    const end = Math.min(data.length, at + cut);
    if (end === at) continue;
    const out = stream.push(data.subarray(at, end));
    expect(out.length).toBeGreaterThan(0); // every chunk is proof of life
    events.push(...out);
    at = end;
  }
  events.push(...stream.end());
  return events;
}

describe('claude-json', () => {
  it('decodes the sample: agent text, tools, the failed tool, usage, cost and session', () => {
    const events = meaningful(decode(streamFixture('claude-sample.ndjson'), new ClaudeStreamDecoder()));
    expect(events).toEqual([
      { type: 'session', id: '3f1c2a9e-5b7d-4e21-9a0c-8d2f6b1e4c77' },
      { type: 'text', stream: 'stdout', chunk: "I'll start with Task 1: reading the current greeting module.\n", parseOnly: true, messageStart: true },
      { type: 'tool', name: 'Read', summary: '/home/dev/widgets/src/greeting.ts', phase: 'call' },
      { type: 'tool', name: 'Read', summary: '/home/dev/widgets/src/greeting.ts' },
      { type: 'tool', name: 'Bash', summary: 'npm test -- greeting', phase: 'call' },
      {
        type: 'tool',
        name: 'Bash',
        summary: 'npm test -- greeting',
        error: 'Error: 1 test failed\n  greeting > says hello\n###TEST_FAILED:greeting:1###',
      },
      {
        type: 'text',
        stream: 'stdout',
        chunk: expect.stringMatching(/^The test expects `hello`[\s\S]*<observation type="assumption"[\s\S]*\n\n###PLAN_COMPLETE###\n$/),
        parseOnly: true,
        messageStart: true,
      },
      { type: 'usage', tokens: { input: 4252, output: 239, cacheRead: 8020, cacheWrite: 4430 }, costUsd: 0.0412 },
    ]);
  });

  it('never turns tool results, tool inputs, thinking, subagents or non-JSON lines into text', () => {
    const events = decode(streamFixture('claude-edge.ndjson'), new ClaudeStreamDecoder());
    expect(textOf(events)).toBe('Looking at it.\nContext is nearly full; saving progress.\n###BAILOUT:context full###\n');
    expect(meaningful(events).filter((e) => e.type !== 'text')).toEqual([
      { type: 'session', id: 'sess-edge-1' },
      { type: 'tool', name: 'Bash', summary: 'cat NOTES.md echo ###PLAN_COMPLETE###', phase: 'call' },
      {
        type: 'tool',
        name: 'Bash',
        summary: 'cat NOTES.md echo ###PLAN_COMPLETE###',
        error: 'cat: NOTES.md: No such file or directory\n###BLOCKED:missing notes###',
      },
      { type: 'tool', name: 'Task', summary: 'Check the tests', phase: 'call' },
      { type: 'tool', name: 'Task', summary: 'Check the tests' },
      { type: 'warning', message: expect.stringMatching(/^claude-json: a stdout line is not a JSON event .*\[hook\] pre-commit/) },
      { type: 'usage', tokens: { input: 1200, output: 220, cacheRead: 4000, cacheWrite: 300 }, costUsd: 0.5 },
      { type: 'error', message: 'claude reported an error (error_max_turns): max turns (30) reached' },
    ]);
  });

  it('logs every stdout byte for the transcript, line by line, non-JSON lines included', () => {
    const data = streamFixture('claude-edge.ndjson');
    const events = decode(data, new ClaudeStreamDecoder(), [5, 300, 1, 1000]);
    expect(logOf(events, 'stdout').equals(data)).toBe(true);
  });

  it('decodes the same whatever the chunking (property)', () => {
    const data = streamFixture('claude-edge.ndjson');
    const whole = meaningful(decode(data, new ClaudeStreamDecoder()));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 400 }), { maxLength: 30 }), (cuts) => {
        expect(meaningful(decode(data, new ClaudeStreamDecoder(), cuts))).toEqual(whole);
      }),
      { numRuns: 50 },
    );
  });

  it('reads CRLF lines and a last line without a line end', () => {
    const data = Buffer.from(
      '{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}\r\n{"type":"result","usage":{},"session_id":"s"}',
    );
    expect(meaningful(decode(data, new ClaudeStreamDecoder()))).toEqual([
      { type: 'text', stream: 'stdout', chunk: 'hi\n', parseOnly: true, messageStart: true },
      { type: 'usage', tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, costUsd: null },
      { type: 'session', id: 's' },
    ]);
  });

  it('survives odd shapes: wrong types, arrays, nulls, missing fields', () => {
    const lines = [
      '[1,2,3]',
      '42',
      'null',
      '{"type":"assistant"}',
      '{"type":"assistant","message":{"content":"not an array"}}',
      '{"type":"assistant","message":{"content":[null,7,{"type":"text","text":5},{"type":"tool_use"}]}}',
      '{"type":"user","message":{"content":[{"type":"tool_result","is_error":true,"content":{"weird":1}}]}}',
      '{"type":"result","usage":{"input_tokens":"many","output_tokens":-3},"total_cost_usd":"free","is_error":true}',
    ];
    const events = meaningful(decode(Buffer.from(lines.join('\n') + '\n'), new ClaudeStreamDecoder()));
    expect(events).toEqual([
      { type: 'warning', message: expect.stringContaining('not a JSON event') },
      { type: 'tool', name: 'tool', summary: '', phase: 'call' },
      { type: 'tool', name: 'tool', summary: '', error: '' },
      { type: 'usage', tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, costUsd: null },
      { type: 'error', message: 'claude reported an error' },
    ]);
  });

  it('drops a line over the limit with a warning and reads the next one', () => {
    const big = `{"type":"user","message":{"content":"${'x'.repeat(5000)}"}}\n`;
    const next = '{"type":"assistant","message":{"content":[{"type":"text","text":"still here"}]}}\n';
    const events = decode(Buffer.from(big + next), new ClaudeStreamDecoder(), [1000, 1000, 1000], 4096);
    expect(meaningful(events)).toEqual([
      { type: 'warning', message: expect.stringContaining(`dropped a stdout line of ${big.length} bytes`) },
      { type: 'text', stream: 'stdout', chunk: 'still here\n', parseOnly: true, messageStart: true },
    ]);
  });

  it('bounds what an agent can put into a tool event', () => {
    const huge = 'e'.repeat(100_000);
    const lines = [
      JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 't', name: 'Bash', input: { command: huge } }] } }),
      JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't', is_error: true, content: huge }] } }),
    ];
    const tools = meaningful(decode(Buffer.from(lines.join('\n') + '\n'), new ClaudeStreamDecoder()));
    for (const t of tools) {
      if (t.type !== 'tool') throw new Error('expected tool events');
      expect(t.summary.length).toBeLessThanOrEqual(200);
      expect((t.error ?? '').length).toBeLessThanOrEqual(2000);
    }
  });
});

describe('codex-json', () => {
  it('decodes the sample: agent message, command, file change, thread id and usage without cost', () => {
    const events = meaningful(decode(streamFixture('codex-sample.ndjson'), new CodexStreamDecoder()));
    expect(events).toEqual([
      { type: 'session', id: '0199a213-81c0-7800-8aa1-bbab2a035a53' },
      { type: 'tool', name: 'command_execution', summary: "bash -lc 'cat src/greeting.ts'" },
      { type: 'tool', name: 'file_change', summary: 'update src/greeting.ts' },
      {
        type: 'text',
        stream: 'stdout',
        chunk: 'Updated the greeting and wrote plans/greeting.summary.json.\n\n###PLAN_COMPLETE###\n',
        parseOnly: true,
        messageStart: true,
      },
      // input_tokens includes the cached part: 24763 − 24448 uncached.
      { type: 'usage', tokens: { input: 315, output: 122, cacheRead: 24448, cacheWrite: 0 }, costUsd: null },
    ]);
  });

  it('keeps command output, reasoning and todo items out of the text; failures become tool errors and warnings', () => {
    const events = decode(streamFixture('codex-edge.ndjson'), new CodexStreamDecoder());
    expect(textOf(events)).toBe('Tests still fail; I need a fresh context.\n###BAILOUT:need fresh context###\n');
    expect(meaningful(events).filter((e) => e.type !== 'text')).toEqual([
      { type: 'session', id: 'thread-edge-9' },
      { type: 'tool', name: 'command_execution', summary: 'npm test', error: 'exit code 1\nFAIL src/a.test.ts\n###TEST_FAILED:a:1###\n' },
      { type: 'tool', name: 'file_change', summary: 'update src/a.ts, add src/b.ts', error: 'file change failed' },
      { type: 'tool', name: 'docs.search', summary: '{"q":"resume"}', error: 'server not reachable' },
      { type: 'tool', name: 'web_search', summary: 'codex exec resume' },
      { type: 'warning', message: expect.stringMatching(/^codex-json: a stdout line is not a JSON event .*codex printed a banner/) },
      { type: 'error', message: 'codex error: stream disconnected; retrying' },
      { type: 'error', message: 'codex turn failed: rate limited', limit: true },
      // A rate limit is a limit the loop waits on, not a failure; shown once, by its limit event.
      { type: 'limit', kind: 'rate', message: 'codex turn failed: rate limited' },
      { type: 'usage', tokens: { input: 400, output: 50, cacheRead: 600, cacheWrite: 0 }, costUsd: null },
    ]);
  });

  it('keeps the end of a long failing command output, where the error is', () => {
    const output = `${'noise\n'.repeat(2000)}the real error`;
    const line = JSON.stringify({ type: 'item.completed', item: { type: 'command_execution', command: 'make', aggregated_output: output, exit_code: 2 } });
    const [tool] = meaningful(decode(Buffer.from(`${line}\n`), new CodexStreamDecoder()));
    expect(tool).toMatchObject({ type: 'tool', name: 'command_execution' });
    const error = (tool as { error: string }).error;
    expect(error.length).toBeLessThanOrEqual(2000);
    expect(error.endsWith('the real error')).toBe(true);
  });

  it('decodes the same whatever the chunking (property)', () => {
    const data = streamFixture('codex-edge.ndjson');
    const whole = meaningful(decode(data, new CodexStreamDecoder()));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 300 }), { maxLength: 30 }), (cuts) => {
        expect(meaningful(decode(data, new CodexStreamDecoder(), cuts))).toEqual(whole);
      }),
      { numRuns: 50 },
    );
  });
});
