// The conversation, streaming, caching, cost and failure behaviour of the anthropic executor,
// through the real SDK against a real loopback server that records every request.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicExecutor, costOf, type AnthropicExecutor } from '../../../src/executors/anthropic/index.js';
import { countBreakpoints } from '../../../src/executors/anthropic/conversation.js';
import { CONTINUE_AFTER_MAX_TOKENS } from '../../../src/executors/anthropic/notes.js';
import type { ExecutorEvent } from '../../../src/executors/types.js';
import { FakeMessagesServer, reply } from './fake-messages-server.js';
import { FAKE_KEY, alive, collect, makePrompt, ofType, scratchDir, textOf } from './helpers.js';
import { PATIENCE_MS } from '../../helpers/patience.js';

// These tests follow the shell's processes by the pids it prints ($$, $!), which are host pids only
// outside a PID namespace; the namespaced shell is tested in test/e2e/anthropic-key.test.ts.
process.env.RALPH_NO_PID_NAMESPACE = '1';

let server: FakeMessagesServer;
let scratch: { dir: string; cleanup: () => Promise<void> };
let executor: AnthropicExecutor;

function newExecutor(extra: { model?: string; maxRetries?: number } = {}): AnthropicExecutor {
  return createAnthropicExecutor({ apiKey: FAKE_KEY, baseURL: server.url, commandTimeoutMs: 10_000, ...extra });
}

beforeEach(async () => {
  server = await FakeMessagesServer.start();
  scratch = await scratchDir();
  executor = newExecutor();
});
afterEach(async () => {
  await executor.close();
  await server.close();
  await scratch.cleanup();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;
const body = (n: number): Body => server.requests[n]!.body;

describe('streaming text', () => {
  it('emits a signal split across deltas as text chunks that concatenate to the line', async () => {
    server.enqueue(reply.text(['All done.\n###PLAN', '_COMP', 'LETE', '###']));
    const events = await collect(executor, { cwd: scratch.dir });
    const texts = ofType(events, 'text');
    expect(texts.every((e) => e.stream === 'stdout' && !e.parseOnly)).toBe(true);
    expect(textOf(events)).toBe('All done.\n###PLAN_COMPLETE###\n');
    expect(ofType(events, 'exit')).toEqual([{ type: 'exit', code: 0 }]);
  });

  it('carries an observation split across deltas whole', async () => {
    const observation =
      '<observation type="insight" severity="low">\n  <title>Split</title>\n  <detail>Across deltas</detail>\n</observation>';
    const deltas = observation.match(/.{1,7}/gs)!;
    server.enqueue(reply.text(['Note:\n', ...deltas]));
    const events = await collect(executor, { cwd: scratch.dir });
    expect(textOf(events)).toBe(`Note:\n${observation}\n`);
  });

  it('ends every text block with a line end, so text around a tool call never joins', async () => {
    server.enqueue(
      reply.turn({
        blocks: [
          { type: 'text', deltas: ['before the tool'] },
          { type: 'tool_use', id: 't1', name: 'bash', input: { command: 'true' } },
        ],
        stopReason: 'tool_use',
      }),
      reply.turn({ blocks: [{ type: 'text', deltas: ['line\n'] }, { type: 'text', deltas: ['###PLAN_COMPLETE###'] }], stopReason: 'end_turn' }),
    );
    const events = await collect(executor, { cwd: scratch.dir });
    expect(textOf(events)).toBe('before the tool\nline\n###PLAN_COMPLETE###\n');
  });

  it('delivers text while the response is still streaming, and stops promptly on abort', async () => {
    server.enqueue(reply.hang(['###BAIL', 'OUT:tired###\n']));
    const controller = new AbortController();
    const events: ExecutorEvent[] = [];
    let abortedAt = 0;
    for await (const e of executor.run({
      prompt: makePrompt(),
      cwd: scratch.dir,
      fresh: true,
      iteration: 1,
      env: {},
      signal: controller.signal,
    })) {
      events.push(e);
      // The whole line has arrived although the server has not finished the response.
      if (e.type === 'text' && textOf(events) === '###BAILOUT:tired###\n' && !abortedAt) {
        abortedAt = performance.now();
        controller.abort();
      }
    }
    // The server never finishes the response: only the abort ends the loop above.
    expect(abortedAt).toBeGreaterThan(0);
    expect(events.at(-1)).toEqual({ type: 'exit', code: null, signal: 'aborted' });
    expect(ofType(events, 'usage')).toHaveLength(0);
    await expect.poll(() => server.hangingResponses).toBe(0);
  });

  it('on abort during a bash command, stops the shell and its children', async () => {
    server.enqueue(reply.tool('t1', 'bash', { command: 'echo $$ > shell.pid; sleep 30 & echo $! > child.pid; wait' }));
    const controller = new AbortController();
    const run = collect(executor, { cwd: scratch.dir, signal: controller.signal });
    const childPidFile = join(scratch.dir, 'child.pid');
    await expect.poll(() => readFile(childPidFile, 'utf8').catch(() => ''), { timeout: PATIENCE_MS }).toMatch(/^\d+\n$/);
    const shellPid = Number(await readFile(join(scratch.dir, 'shell.pid'), 'utf8'));
    const childPid = Number(await readFile(childPidFile, 'utf8'));
    expect(alive(childPid)).toBe(true);
    controller.abort();
    const events = await run;
    expect(events.at(-1)).toEqual({ type: 'exit', code: null, signal: 'aborted' });
    await expect.poll(() => alive(shellPid), { timeout: PATIENCE_MS }).toBe(false);
    await expect.poll(() => alive(childPid), { timeout: PATIENCE_MS }).toBe(false);
    await expect.poll(() => alive(-shellPid), { timeout: PATIENCE_MS }).toBe(false);
  });
});

describe('the assistant turn sent back', () => {
  it('keeps thinking (with its signature) and the tool call, its input rebuilt from JSON deltas', async () => {
    const input = { command: 'echo "a \\"quoted\\" value"', note: 'ü ✓' };
    server.enqueue(
      reply.turn({
        blocks: [
          { type: 'thinking', deltas: ['Let me ', 'check.'], signature: 'sig-abc' },
          { type: 'text', deltas: ['Checking.'] },
          { type: 'tool_use', id: 'toolu_9', name: 'bash', input, jsonChunks: 7 },
        ],
        stopReason: 'tool_use',
      }),
      reply.text(['done']),
    );
    const events = await collect(executor, { cwd: scratch.dir });
    expect(body(1).messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Let me check.', signature: 'sig-abc' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_9', name: 'bash', input },
      ],
    });
    expect(body(1).messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_9', content: 'a "quoted" value\n' });
    // Thinking is never read for signals.
    expect(textOf(events)).toBe('Checking.\ndone\n');
  });
});

describe('broken streams', () => {
  it('ends the iteration with an error when the stream reports an error midway', async () => {
    const events = reply.text(['partial']);
    if (events.kind !== 'stream') throw new Error('unreachable');
    events.events.splice(3, Infinity, { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
    server.enqueue(events);
    const out = await collect(executor, { cwd: scratch.dir });
    expect(textOf(out)).toBe('partial');
    expect(out.at(-1)).toMatchObject({ type: 'exit', code: 1, error: expect.stringMatching(/Overloaded/) });
  });

  it('ends the iteration with an error when the stream stops before the message ends', async () => {
    const cut = reply.text(['half']);
    if (cut.kind !== 'stream') throw new Error('unreachable');
    cut.events.splice(3);
    server.enqueue(cut);
    const out = await collect(executor, { cwd: scratch.dir });
    expect(out.at(-1)).toMatchObject({ type: 'exit', code: 1, error: expect.stringMatching(/ended before the message was complete/) });
  });
});

describe('conversation policy', () => {
  it('continues the same conversation when fresh is false, and starts over when fresh is true', async () => {
    server.enqueue(reply.text(['first']), reply.text(['second']), reply.text(['third']));
    await collect(executor, { cwd: scratch.dir, prompt: makePrompt('Begin.') });
    await collect(executor, { cwd: scratch.dir, prompt: makePrompt('Keep going.'), fresh: false, iteration: 2 });
    await collect(executor, { cwd: scratch.dir, prompt: makePrompt('Fresh start.'), fresh: true, iteration: 3 });

    const plain = (messages: Body[]): Body[] =>
      messages.map((m: Body) => ({ role: m.role, text: m.content.map((b: Body) => b.text).join('|') }));
    const plan = makePrompt().plan;
    expect(plain(body(1).messages)).toEqual([
      { role: 'user', text: `${plan}|Begin.` },
      { role: 'assistant', text: 'first' },
      { role: 'user', text: 'Keep going.' },
    ]);
    expect(plain(body(2).messages)).toEqual([{ role: 'user', text: `${plan}|Fresh start.` }]);
    expect(body(2).system).toEqual([{ type: 'text', text: makePrompt().instructions, cache_control: { type: 'ephemeral' } }]);
  });

  it('continues a turn cut by max_tokens, in the same iteration', async () => {
    server.enqueue(reply.text(['half a tho'], 'max_tokens'), reply.text(['ught, done']));
    const events = await collect(executor, { cwd: scratch.dir });
    expect(server.requests).toHaveLength(2);
    const messages = body(1).messages;
    expect(messages.at(-2)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'half a tho' }] });
    expect(messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: CONTINUE_AFTER_MAX_TOKENS }] });
    expect(ofType(events, 'exit')).toEqual([{ type: 'exit', code: 0 }]);
    expect(ofType(events, 'usage')).toHaveLength(2);
  });

  it('resumes a paused turn by sending it back as the last message', async () => {
    server.enqueue(reply.text(['searching...'], 'pause_turn'), reply.text(['found it']));
    const events = await collect(executor, { cwd: scratch.dir });
    expect(server.requests).toHaveLength(2);
    expect(body(1).messages.at(-1)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'searching...' }] });
    expect(textOf(events)).toBe('searching...\nfound it\n');
    expect(ofType(events, 'exit')).toEqual([{ type: 'exit', code: 0 }]);
  });

  it('ends the iteration on a refusal with a warning, and starts the next one afresh', async () => {
    server.enqueue(reply.text(['I cannot help with that.'], 'refusal'), reply.text(['ok']));
    const events = await collect(executor, { cwd: scratch.dir });
    expect(ofType(events, 'warning').map((w) => w.message)).toEqual([expect.stringMatching(/refused/)]);
    expect(events.at(-1)).toEqual({ type: 'exit', code: 0 });
    await collect(executor, { cwd: scratch.dir, fresh: false, iteration: 2 });
    expect(body(1).messages).toHaveLength(1);
  });

  it('starts a fresh conversation once when the context window is exceeded', async () => {
    server.enqueue(
      reply.text(['first']),
      reply.error(400, 'invalid_request_error', 'prompt is too long: 250000 tokens > 200000 maximum'),
      reply.text(['fresh again']),
    );
    await collect(executor, { cwd: scratch.dir });
    const events = await collect(executor, { cwd: scratch.dir, fresh: false, iteration: 2, prompt: makePrompt('Go on.') });
    expect(ofType(events, 'warning').map((w) => w.message)).toEqual([expect.stringMatching(/context window.*fresh conversation/)]);
    expect(body(1).messages).toHaveLength(3);
    expect(body(2).messages).toHaveLength(1);
    expect(body(2).messages[0].content.map((b: Body) => b.text)).toEqual([makePrompt().plan, 'Go on.']);
    expect(events.at(-1)).toEqual({ type: 'exit', code: 0 });
  });

  it('fails the iteration when even a fresh conversation is too long', async () => {
    const tooLong = (): ReturnType<typeof reply.error> => reply.error(400, 'invalid_request_error', 'prompt is too long: 999999 tokens > 200000 maximum');
    server.enqueue(tooLong(), tooLong());
    const events = await collect(executor, { cwd: scratch.dir });
    expect(server.requests).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'exit', code: 1, error: expect.stringMatching(/even in a fresh conversation/) });
  });
});

describe('prompt caching', () => {
  it('marks the system prompt, the plan and the conversation tail, never more than 4 breakpoints', async () => {
    server.enqueue(
      reply.tool('t1', 'bash', { command: 'echo one' }, 'Looking.'),
      reply.tool('t2', 'bash', { command: 'echo two' }),
      reply.text(['done']),
    );
    await collect(executor, { cwd: scratch.dir });
    await writeFile(join(scratch.dir, 'x'), '');
    server.enqueue(reply.text(['again']));
    await collect(executor, { cwd: scratch.dir, fresh: false, iteration: 2, prompt: makePrompt('Next.') });
    expect(server.requests).toHaveLength(4);
    for (let n = 0; n < 4; n++) {
      const b = body(n);
      expect(b.system[0].cache_control).toEqual({ type: 'ephemeral' });
      expect(b.messages[0].content[0]).toMatchObject({ text: makePrompt().plan, cache_control: { type: 'ephemeral' } });
      const last = b.messages.at(-1).content.at(-1);
      expect(last.cache_control).toEqual({ type: 'ephemeral' });
      expect(countBreakpoints(b)).toBe(3);
    }
    // The tail moves: the earlier tail block carries no marker in a later request.
    expect(body(2).messages[2].content[0]).toMatchObject({ type: 'tool_result' });
    expect(body(2).messages[2].content[0].cache_control).toBeUndefined();
    expect(body(3).messages.at(-1).content.at(-1)).toMatchObject({ type: 'text', text: 'Next.' });
  });
});

describe('usage and cost', () => {
  it('reports tokens, cost and context size after every request', async () => {
    const usage = { input_tokens: 100, output_tokens: 50, cache_creation_input_tokens: 1_000, cache_read_input_tokens: 5_000 };
    server.enqueue(reply.text(['hi'], 'end_turn', usage));
    const events = await collect(executor, { cwd: scratch.dir });
    const expected = (100 * 2 + 50 * 10 + 1_000 * 2.5 + 5_000 * 0.1) / 1_000_000;
    expect(ofType(events, 'usage')).toEqual([
      {
        type: 'usage',
        tokens: { input: 100, output: 50, cacheWrite: 1_000, cacheRead: 5_000 },
        costUsd: expected,
        contextTokens: 6_100,
      },
    ]);
    expect(costOf('claude-sonnet-5-5', { input: 100, output: 50, cacheWrite: 1_000, cacheRead: 5_000 })).toBeCloseTo(0.0037, 12);
    expect(ofType(events, 'warning')).toEqual([]);
  });

  it('reports an unpriced model as null cost with one warning, never 0', async () => {
    await executor.close();
    executor = newExecutor({ model: 'claude-unreleased-9' });
    server.enqueue(reply.tool('t1', 'bash', { command: 'true' }), reply.text(['a']), reply.text(['b']));
    const first = await collect(executor, { cwd: scratch.dir });
    const second = await collect(executor, { cwd: scratch.dir, fresh: false, iteration: 2 });
    const all = [...first, ...second];
    expect(body(0).model).toBe('claude-unreleased-9');
    expect(ofType(all, 'usage').map((u) => u.costUsd)).toEqual([null, null, null]);
    expect(ofType(all, 'warning').map((w) => w.message)).toEqual([expect.stringMatching(/no price is known for model claude-unreleased-9/)]);
  });
});

describe('failures', () => {
  it('retries a 529 (honouring retry-after) and then succeeds', async () => {
    server.enqueue(reply.error(529, 'overloaded_error', 'Overloaded', { 'retry-after': '0', 'retry-after-ms': '1' }), reply.text(['ok']));
    const events = await collect(executor, { cwd: scratch.dir });
    expect(server.requests).toHaveLength(2);
    expect(events.at(-1)).toEqual({ type: 'exit', code: 0 });
    expect(textOf(events)).toBe('ok\n');
  });

  it('reports an overloaded API that outlasts the retries as a limit to wait out, not a failure', async () => {
    await executor.close();
    executor = newExecutor({ maxRetries: 1 });
    const overloaded = (): ReturnType<typeof reply.error> => reply.error(529, 'overloaded_error', 'Overloaded', { 'retry-after-ms': '1' });
    server.enqueue(overloaded(), overloaded());
    const events = await collect(executor, { cwd: scratch.dir });
    expect(server.requests).toHaveLength(2);
    expect(ofType(events, 'limit')).toEqual([
      { type: 'limit', kind: 'overloaded', message: 'the Anthropic API refused (529 overloaded_error): Overloaded', retryAfterMs: 1 },
    ]);
    const exit = events.at(-1) as Extract<ExecutorEvent, { type: 'exit' }>;
    expect(exit).toMatchObject({ type: 'exit', code: 1 });
    expect(exit.fatal).toBeUndefined();
  });

  it('hands a long retry-after to the loop at once instead of sleeping inside the request', async () => {
    server.enqueue(reply.error(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit', { 'retry-after': '86400' }));
    // Sleeping the day inside the request would fail the test by its timeout.
    const events = await collect(executor, { cwd: scratch.dir });
    expect(server.requests).toHaveLength(1);
    expect(ofType(events, 'limit')).toEqual([
      expect.objectContaining({ type: 'limit', kind: 'rate', retryAfterMs: 86_400_000 }),
    ]);
  });

  it('tells a usage limit from a rate limit by its words', async () => {
    server.enqueue(reply.error(429, 'rate_limit_error', 'You have reached your usage limit for this billing period', { 'retry-after': '7200' }));
    const events = await collect(executor, { cwd: scratch.dir });
    expect(ofType(events, 'limit')).toEqual([expect.objectContaining({ kind: 'usage', retryAfterMs: 7_200_000 })]);
  });

  it('ends with a fatal exit on 401, without retrying', async () => {
    server.enqueue(reply.error(401, 'authentication_error', `invalid x-api-key ${FAKE_KEY}`));
    const events = await collect(executor, { cwd: scratch.dir });
    expect(server.requests).toHaveLength(1);
    expect(events).toEqual([
      { type: 'exit', code: 1, fatal: true, error: 'the API refused the key (401): check ANTHROPIC_API_KEY' },
    ]);
  });

  it('treats 403 as fatal too', async () => {
    server.enqueue(reply.error(403, 'permission_error', 'not allowed'));
    const events = await collect(executor, { cwd: scratch.dir });
    expect(events.at(-1)).toEqual({ type: 'exit', code: 1, fatal: true, error: 'the API refused the key (403): check ANTHROPIC_API_KEY' });
  });
});

describe('the API key', () => {
  it('never appears in any event, nor in what is sent back to the model', async () => {
    const before = process.env['ANTHROPIC_API_KEY'];
    process.env['ANTHROPIC_API_KEY'] = FAKE_KEY;
    try {
      await writeFile(join(scratch.dir, '.env'), `ANTHROPIC_API_KEY=${FAKE_KEY}\n`);
      server.enqueue(
        reply.tool('t1', 'bash', { command: `cat .env; echo "$ANTHROPIC_API_KEY"; echo sk-ant-test-SEC$(echo RET123)` }),
        reply.tool('t2', 'str_replace_based_edit_tool', { command: 'view', path: '.env' }),
        reply.text(['the key is sk-ant-t', 'est-SECRET', '123, see?']),
        reply.error(500, 'api_error', `upstream saw ${FAKE_KEY}`, { 'x-should-retry': 'false' }),
      );
      const events = await collect(executor, { cwd: scratch.dir });
      const failed = await collect(executor, { cwd: scratch.dir, fresh: false, iteration: 2 });
      const emitted = JSON.stringify([...events, ...failed]);
      expect(emitted).not.toContain('SECRET123');
      expect(textOf(events)).toBe('the key is [REDACTED], see?\n');
      expect(failed.at(-1)).toMatchObject({ type: 'exit', code: 1, error: expect.stringContaining('[REDACTED]') });
      // The model never sees it either (tool results are scrubbed before they are sent).
      const sentBack = JSON.stringify(
        server.requests.flatMap((r) => r.body.messages.flatMap((m: Body) => m.content.filter((b: Body) => b.type === 'tool_result'))),
      );
      expect(sentBack).toContain('[REDACTED]');
      expect(sentBack).not.toContain('SECRET123');
      // …while the key itself did authenticate the requests.
      expect(Object.values(server.requests[0]!.headers).join(' ')).toContain(FAKE_KEY);
    } finally {
      if (before === undefined) delete process.env['ANTHROPIC_API_KEY'];
      else process.env['ANTHROPIC_API_KEY'] = before;
    }
  });
});
