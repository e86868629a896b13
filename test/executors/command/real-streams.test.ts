// The stream formats read what the real CLIs printed (test/fixtures/agents-real/: Claude Code
// 2.1.197 and Codex 0.169.0 against local API stand-ins; `npm run test:agents -- --update-fixtures`
// refreshes the recorded ones).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ClaudeStreamDecoder } from '../../../src/executors/command/claude-stream.js';
import { CodexStreamDecoder, type CodexLedger } from '../../../src/executors/command/codex-stream.js';
import { GeminiStreamDecoder } from '../../../src/executors/command/gemini-stream.js';
import { decoderFor, newFormatMemory } from '../../../src/executors/command/formats.js';
import { JsonEventStream } from '../../../src/executors/command/json-stream.js';
import { OpencodeStreamDecoder } from '../../../src/executors/command/opencode-stream.js';
import type { StreamDecoder } from '../../../src/executors/command/stream-decoder.js';
import type { ExecutorEvent } from '../../../src/executors/types.js';
import { meaningful, textOf } from './helpers.js';

const REAL = fileURLToPath(new URL('../../fixtures/agents-real/', import.meta.url));
const claudeFile = (name: string) => readFileSync(`${REAL}claude-code-2.1.197/${name}`);
const codexFile = (name: string) => readFileSync(`${REAL}codex-0.169.0/${name}`);

function decode(data: Buffer, decoder: StreamDecoder): ExecutorEvent[] {
  const stream = new JsonEventStream(decoder);
  return [...stream.push(data), ...stream.end()];
}

const ofType = <T extends ExecutorEvent['type']>(events: ExecutorEvent[], type: T) =>
  events.filter((e): e is Extract<ExecutorEvent, { type: T }> => e.type === type);

describe('Claude Code 2.1.197', () => {
  it('complete: only the agent words are text; tools keep their phase; tokens and cost from the result', () => {
    const events = decode(claudeFile('complete-iteration1.jsonl'), new ClaudeStreamDecoder());
    const text = textOf(events);
    expect(text).toMatch(/^Creating the file\.\nAll done\.\n<observation type="bug"[\s\S]*\n###PLAN_COMPLETE###\n$/);
    expect(ofType(events, 'tool').map((t) => t.phase ?? 'result')).toEqual(['call', 'result', 'call', 'result']);
    expect(ofType(events, 'usage')).toEqual([{ type: 'usage', tokens: { input: 3600, output: 240, cacheRead: 0, cacheWrite: 0 }, costUsd: 0.024 }]);
    expect(ofType(events, 'session')).toEqual([{ type: 'session', id: '788aac51-8e9a-4339-bc41-b4e61f48c32a' }]);
  });

  it("a tool's output with ###PLAN_COMPLETE### is never text", () => {
    const events = decode(claudeFile('toolsignal-iteration1.jsonl'), new ClaudeStreamDecoder());
    expect(textOf(events)).toBe('I read the notes. Still working.\n');
  });

  it('cache writes and reads are counted', () => {
    const [usage] = ofType(decode(claudeFile('cost-cache-tokens-iter1.jsonl'), new ClaudeStreamDecoder()), 'usage');
    expect(usage?.tokens).toEqual({ input: 13000, output: 2500, cacheRead: 60000, cacheWrite: 5000 });
  });

  it('a subagent: its words are not text, and its tokens count (modelUsage, not the main agent’s usage)', () => {
    const events = decode(claudeFile('subagent-agent-tool-iter1.jsonl'), new ClaudeStreamDecoder());
    expect(textOf(events)).toBe('Delegating.\nThe subagent reported back. I am not done yet.\n');
    expect(ofType(events, 'usage')[0]?.tokens).toEqual({ input: 3000, output: 300, cacheRead: 0, cacheWrite: 0 });
  });

  it('429: the synthetic message is not the agent’s words; the error names the status; a rate limit', () => {
    const events = decode(claudeFile('api-429-rate-limit.jsonl'), new ClaudeStreamDecoder());
    expect(textOf(events)).toBe('');
    expect(ofType(events, 'error')).toEqual([
      { type: 'error', status: 429, limit: true, message: expect.stringMatching(/^claude reported an API error \(HTTP 429\): API Error: Request rejected \(429\)/) },
    ]);
    expect(ofType(events, 'limit')).toEqual([{ type: 'limit', kind: 'rate', message: expect.stringContaining('HTTP 429') }]);
  });

  it('529: overloaded', () => {
    const events = decode(claudeFile('error-529-after-retry.jsonl'), new ClaudeStreamDecoder());
    expect(ofType(events, 'limit').map((l) => l.kind)).toEqual(['overloaded']);
    expect(textOf(events)).toBe('');
  });

  it('401: fatal at the first refused retry, not after ten', () => {
    const events = decode(claudeFile('error-401-10-retries.jsonl'), new ClaudeStreamDecoder());
    const errors = ofType(events, 'error');
    expect(errors[0]).toMatchObject({ fatal: true, status: 401, message: expect.stringContaining('HTTP 401') });
    // The first fatal error comes before the second retry line is decoded.
    const firstFatal = events.findIndex((e) => e.type === 'error' && e.fatal);
    const logsBefore = events.slice(0, firstFatal).filter((e) => e.type === 'log').length;
    expect(logsBefore).toBe(2); // the init line and the first api_retry line
    expect(errors.at(-1)).toMatchObject({ fatal: true, status: 401, message: expect.stringContaining('Invalid API key') });
  });

  it('no result (stopped by a signal): the per-message usage is reported as an estimate, each message once', () => {
    const events = decode(claudeFile('sigint-during-long-bash-result-error_during_execution.jsonl'), new ClaudeStreamDecoder());
    const usage = ofType(events, 'usage');
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ estimate: true, costUsd: null });
    // One API call (1000 input tokens) reported in two assistant events (its text, its tool call): counted once.
    expect(usage[0]!.tokens.input).toBe(1000);
  });

  it('a result makes the estimate unnecessary', () => {
    const events = decode(claudeFile('hello.jsonl'), new ClaudeStreamDecoder());
    expect(ofType(events, 'usage').filter((u) => u.estimate)).toEqual([]);
  });
});

describe('Codex 0.169.0', () => {
  it('complete: agent message text, cached input split out, session', () => {
    const events = decode(codexFile('complete-iteration1.ndjson'), new CodexStreamDecoder());
    expect(textOf(events)).toMatch(/^All done\.\n<observation[\s\S]*###PLAN_COMPLETE###\n$/);
    expect(ofType(events, 'usage')[0]?.tokens).toEqual({ input: 1500, output: 180, cacheRead: 3000, cacheWrite: 0 });
  });

  it("command output with ###PLAN_COMPLETE### is never text", () => {
    expect(textOf(decode(codexFile('toolsignal-iteration1.ndjson'), new CodexStreamDecoder()))).toBe('Read the notes. Still working.\n');
  });

  it('a resumed thread reports its running total: each turn is counted once', () => {
    const ledger: CodexLedger = new Map();
    const first = ofType(decode(codexFile('toolsignal-iteration1.ndjson'), new CodexStreamDecoder(ledger)), 'usage');
    const second = ofType(decode(codexFile('resume-iteration2.ndjson'), new CodexStreamDecoder(ledger)), 'usage');
    expect(first[0]?.tokens).toEqual({ input: 1000, output: 120, cacheRead: 2000, cacheWrite: 0 });
    expect(second[0]?.tokens).toEqual({ input: 500, output: 60, cacheRead: 1000, cacheWrite: 0 });
  });

  it('cache writes are read, and taken out of input', () => {
    const line = JSON.stringify({ type: 'turn.completed', usage: { input_tokens: 1000, cached_input_tokens: 600, cache_write_input_tokens: 300, output_tokens: 5 } });
    const [usage] = ofType(decode(Buffer.from(`${line}\n`), new CodexStreamDecoder()), 'usage');
    expect(usage?.tokens).toEqual({ input: 100, output: 5, cacheRead: 600, cacheWrite: 300 });
  });

  it('usage limit: one limit event (the turn.failed repeats the error), and an error for the reason', () => {
    const events = meaningful(decode(codexFile('limit-iteration1.ndjson'), new CodexStreamDecoder()));
    expect(ofType(events, 'limit')).toEqual([{ type: 'limit', kind: 'usage', message: 'codex error: You’ve hit your usage limit. Try again later.' }]);
    expect(ofType(events, 'error').map((e) => e.message)).toEqual(['codex error: You’ve hit your usage limit. Try again later.']);
  });
});

// What `npm run test:agents -- --update-fixtures` recorded: each scenario's iterations as the CLI
// printed them (stdout events and stderr lines, as in iterations/<n>.log).
describe.each([
  ['claude-code-2.1.197', () => new ClaudeStreamDecoder()],
  ['codex-0.169.0', () => new CodexStreamDecoder()],
  ['gemini-cli-0.61.0', () => new GeminiStreamDecoder()],
  ['qwen-code-0.24.4', () => decoderFor('qwen-json', newFormatMemory())!],
  ['opencode-1.18.33', () => new OpencodeStreamDecoder()],
] as const)('recorded by the conformance suite: %s', (dir, make) => {
  const rec = (name: string) => readFileSync(`${REAL}${dir}/recorded/${name}`);

  it('complete: the observation and the sentinel are the agent’s words; tokens reported', () => {
    const events = decode(rec('complete-iteration1.ndjson'), make());
    expect(textOf(events)).toMatch(/<observation type="insight" severity="low"><title>Greeting file added<\/title>[\s\S]*\n###PLAN_COMPLETE###\n$/);
    expect(ofType(events, 'usage').reduce((n, u) => n + u.tokens.input + u.tokens.cacheRead, 0)).toBeGreaterThan(0);
  });

  it("toolsignal: the sentinel in a tool's output is not text", () => {
    const events = decode(rec('toolsignal-iteration1.ndjson'), make());
    expect(rec('toolsignal-iteration1.ndjson').toString()).toContain('###PLAN_COMPLETE###');
    expect(textOf(events)).not.toContain('###PLAN_COMPLETE###');
  });

  it('bailout, then a fresh session that completes', () => {
    expect(textOf(decode(rec('bailout-iteration1.ndjson'), make()))).toContain('###BAILOUT:CTX-FULL###\n');
    expect(textOf(decode(rec('bailout-iteration2.ndjson'), make()))).toContain('###PLAN_COMPLETE###\n');
  });

  it('resume: the same session id in both iterations', () => {
    const id = (name: string) => ofType(decode(rec(name), make()), 'session')[0]?.id;
    expect(id('resume-iteration1.ndjson')).toBeDefined();
    expect(id('resume-iteration2.ndjson')).toBe(id('resume-iteration1.ndjson'));
  });
});

describe('Codex 0.169.0 notices', () => {
  it('"Model metadata … not found", printed at every start, is shown once per run', () => {
    const memory = newFormatMemory();
    const first = decode(codexFile('limit-iteration1.ndjson'), decoderFor('codex-json', memory)!);
    const second = decode(codexFile('limit-iteration1.ndjson'), decoderFor('codex-json', memory)!);
    const notices = (events: ExecutorEvent[]) => events.filter((e) => e.type === 'warning' && /Model metadata/.test(e.message));
    expect(notices(first)).toHaveLength(1);
    expect(notices(second)).toEqual([]);
  });
});

describe('Codex 0.169.0 stopped mid-turn', () => {
  it('prints no tokens then (checked against the real CLI: SIGINT mid-turn exits without turn.completed): a warning says they are not counted', () => {
    const started = `${JSON.stringify({ type: 'thread.started', thread_id: 't' })}\n${JSON.stringify({ type: 'turn.started' })}\n`;
    const stopped = decode(Buffer.from(started), decoderFor('codex-json', newFormatMemory())!);
    expect(stopped.filter((e) => e.type === 'usage')).toEqual([]);
    expect(stopped).toContainEqual({ type: 'warning', message: expect.stringMatching(/^codex: the turn ended without reporting its tokens/) });
    const finished = decode(codexFile('complete-iteration1.ndjson'), decoderFor('codex-json', newFormatMemory())!);
    expect(finished.filter((e) => e.type === 'warning' && /without reporting its tokens/.test(e.message))).toEqual([]);
  });
});
