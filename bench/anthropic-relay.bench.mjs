// How much the anthropic executor adds to reading a streamed answer. A loopback server streams a
// 10 MB answer in many small text deltas (Messages API SSE). Baseline (a): the bare SDK consuming
// the raw event stream (`messages.create({stream: true})`, every event read, nothing kept).
// Measured (b): the executor's run() — which also keeps the whole message for the conversation —
// with every text chunk fed to the signal parser, as the loop does. The SDK's own MessageStream
// helper (which builds the message too) is timed alongside for reference.
// Goal: (b)/(a) <= 1.2. Needs dist/ (npm run build).
import { createServer } from 'node:http';
import Anthropic from '@anthropic-ai/sdk';
import { createAnthropicExecutor } from '../dist/executors/anthropic/index.js';

const GOAL = 1.2;
const TOTAL_BYTES = 10 * 1024 * 1024;
const DELTA_BYTES = 64; // a few tokens, like the real API
const ROUNDS = 7;
const API_KEY = 'sk-ant-bench-0000000000';

let createSignalParser;
try {
  ({ createSignalParser } = await import('../dist/signals/index.js'));
} catch (e) {
  console.error(`the signal parser is not built (dist/signals/index.js): ${e.message}; run npm run build`);
  process.exit(1);
}

/** The whole SSE response, built once: lines of prose, a signal at the end. */
function buildResponse() {
  const line = 'The quick brown fox jumps over the lazy dog while the build runs; nothing to see.\n';
  let text = '';
  while (text.length < TOTAL_BYTES) text += line;
  text += '###PLAN_COMPLETE###\n';
  const parts = [];
  const event = (name, data) => parts.push(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`);
  event('message_start', {
    type: 'message_start',
    message: {
      id: 'msg_bench', type: 'message', role: 'assistant', model: 'claude-sonnet-5-5', content: [],
      stop_reason: null, stop_sequence: null,
      usage: { input_tokens: 1000, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  });
  event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
  let deltas = 0;
  for (let i = 0; i < text.length; i += DELTA_BYTES) {
    event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: text.slice(i, i + DELTA_BYTES) } });
    deltas++;
  }
  event('content_block_stop', { type: 'content_block_stop', index: 0 });
  event('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2_500_000 } });
  event('message_stop', { type: 'message_stop' });
  return { body: Buffer.from(parts.join('')), textLength: text.length, deltas };
}

const { body, textLength, deltas } = buildResponse();
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // Written in network-sized pieces, as a real response arrives.
    for (let i = 0; i < body.length; i += 64 * 1024) res.write(body.subarray(i, i + 64 * 1024));
    res.end();
  });
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const baseURL = `http://127.0.0.1:${server.address().port}`;

/**
 * Wall time, and this process's CPU time (user + system). The CPU time is the ratio's measure:
 * on a shared machine the wall time mostly measures the other tenants (both are printed).
 */
function clock(since) {
  const now = { wall: performance.now(), cpu: process.cpuUsage() };
  if (!since) return now;
  const cpu = process.cpuUsage(since.cpu);
  return { wall: now.wall - since.wall, cpu: (cpu.user + cpu.system) / 1000 };
}

const params = { model: 'claude-sonnet-5-5', max_tokens: 1024, messages: [{ role: 'user', content: 'go' }] };

/** (a) The bare SDK: the raw event stream of messages.create({stream: true}), every event read. */
async function bareSdk() {
  const client = new Anthropic({ apiKey: API_KEY, baseURL, maxRetries: 0 });
  const started = clock();
  const stream = await client.messages.create({ ...params, stream: true });
  let n = 0;
  for await (const ev of stream) {
    if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') n += ev.delta.text.length;
  }
  const ms = clock(started);
  if (n !== textLength) throw new Error(`bare SDK read ${n} of ${textLength} characters`);
  return ms;
}

/** For reference: the SDK's MessageStream helper, which also builds the final message. */
async function sdkHelper() {
  const client = new Anthropic({ apiKey: API_KEY, baseURL, maxRetries: 0 });
  const started = clock();
  const stream = client.messages.stream(params);
  let n = 0;
  stream.on('text', (t) => (n += t.length));
  await stream.finalMessage();
  const ms = clock(started);
  if (n !== textLength) throw new Error(`SDK helper read ${n} of ${textLength} characters`);
  return ms;
}

async function executorWithParser() {
  const executor = createAnthropicExecutor({ apiKey: API_KEY, baseURL, maxRetries: 0 });
  const prompt = { instructions: 'bench', plan: '# plan', message: 'go', text: 'bench\n# plan\ngo' };
  let signals = 0;
  let chars = 0;
  let parserMs = 0;
  let chunks = 0;
  const parser = createSignalParser((e) => {
    if (e.type === 'signal') signals++;
  });
  const started = clock();
  for await (const ev of executor.run({ prompt, cwd: process.cwd(), fresh: true, iteration: 1, env: {}, signal: new AbortController().signal })) {
    if (ev.type === 'text') {
      chars += ev.chunk.length;
      const t = performance.now();
      parser.push(ev.chunk);
      parserMs += performance.now() - t;
      chunks++;
    } else if (ev.type === 'exit' && ev.code !== 0) {
      throw new Error(`executor ended with ${JSON.stringify(ev)}`);
    }
  }
  parser.end();
  const ms = clock(started);
  await executor.close();
  if (chars !== textLength) throw new Error(`executor relayed ${chars} of ${textLength} characters`);
  if (signals !== 1) throw new Error(`the parser saw ${signals} signals, expected 1`);
  return { ...ms, parser: parserMs, chunks };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
await bareSdk();
await sdkHelper();
await executorWithParser();
const a = [];
const h = [];
const b = [];
// Interleaved, so a busy machine slows all three alike.
for (let i = 0; i < ROUNDS; i++) {
  a.push(await bareSdk());
  b.push(await executorWithParser());
  h.push(await sdkHelper());
}
server.close();
const med = (xs, k) => median(xs.map((x) => x[k]));
const ratio = med(b, 'cpu') / med(a, 'cpu');
const wallRatio = med(b, 'wall') / med(a, 'wall');
console.log(
  `RESULT anthropic-relay: ratio=${ratio.toFixed(2)}x (goal <= ${GOAL}x) measure=cpu_time ` +
    `executor_parser_cpu_ms=${med(b, 'cpu').toFixed(0)} bare_sdk_cpu_ms=${med(a, 'cpu').toFixed(0)} ` +
    `sdk_stream_helper_cpu_ms=${med(h, 'cpu').toFixed(0)} wall_ratio=${wallRatio.toFixed(2)}x ` +
    `executor_parser_wall_ms=${med(b, 'wall').toFixed(0)} bare_sdk_wall_ms=${med(a, 'wall').toFixed(0)} ` +
    `parser_ms=${med(b, 'parser').toFixed(0)} text_chunks=${med(b, 'chunks')} answer_mb=${(textLength / 1048576).toFixed(1)} deltas=${deltas} rounds=${ROUNDS}`,
);
if (ratio > GOAL) process.exitCode = 1;
