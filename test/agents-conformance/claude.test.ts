// The real Claude Code CLI (pinned, from npm) driven by `ralph exec --agent claude` against a local
// stand-in of the Messages API. See docs/agents.md, "The conformance suite".
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnthropicStandIn, TURN_USAGE } from './anthropic-stand-in.js';
import { describeFailure, recordStreams, runScenario, type RunSpec } from './harness.js';
import { ensureInstalled, PINNED } from './install.js';

const pkg = PINNED.claude!;
const FIXTURES = `claude-code-${pkg.version}`;
let binDir = '';
let api: AnthropicStandIn;

beforeAll(async () => {
  binDir = ensureInstalled(pkg);
  api = await AnthropicStandIn.start();
});
afterAll(async () => {
  await api?.close();
});

function spec(scenario: string, more: Partial<RunSpec> = {}): RunSpec {
  return {
    agent: 'claude',
    scenario,
    binDir,
    env: {
      ANTHROPIC_BASE_URL: api.url,
      ANTHROPIC_API_KEY: 'sk-ant-stand-in',
      // Claude Code refuses --dangerously-skip-permissions as root without it.
      IS_SANDBOX: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    },
    ...more,
  };
}

function served(scenario: string) {
  return api.served.filter((s) => s.scenario === scenario);
}

describe(`Claude Code ${pkg.version} through ralph exec --agent claude`, () => {
  it('completes: the summary written by a tool call, an observation recorded, tokens counted', async () => {
    const before = { ...api.reported };
    const o = await runScenario(spec('complete'));
    recordStreams(FIXTURES, 'complete', o);
    expect(o.result?.outcome, describeFailure(o)).toBe('complete');
    expect(o.result.iterations).toBe(1);
    expect(o.findings.map((f) => f.title)).toEqual(['Greeting file added']);
    expect(readFileSync(join(o.dir, 'work/greeting.txt'), 'utf8')).toBe('hello\n');
    const turns = served('complete').length;
    expect(turns).toBe(3);
    expect(o.result.tokens).toEqual({
      input: api.reported.input - before.input,
      output: api.reported.output - before.output,
      cacheRead: api.reported.cacheRead - before.cacheRead,
      cacheWrite: api.reported.cacheWrite - before.cacheWrite,
    });
    expect(o.result.tokens.input).toBe(turns * TURN_USAGE.input_tokens);
    expect(o.result.costUsd).toBeGreaterThan(0);
    // The run says which command and stream format it chose.
    const agentEvent = o.events.find((e) => e.type === 'agent');
    expect(agentEvent?.streamFormat).toBe('claude-json');
    expect(agentEvent?.command[0]).toBe('claude');
  });

  it("ignores ###PLAN_COMPLETE### in a tool's output", async () => {
    const o = await runScenario(spec('toolsignal', { args: ['--max-iterations', '1'] }));
    recordStreams(FIXTURES, 'toolsignal', o);
    expect(o.result?.outcome, describeFailure(o)).toBe('exhausted');
    expect(o.result.signals).toEqual([]);
    expect(o.logs[0]).toContain('###PLAN_COMPLETE###'); // it was there, in the tool result
  });

  it('starts a fresh session after a bailout', async () => {
    const o = await runScenario(spec('bailout'));
    recordStreams(FIXTURES, 'bailout', o);
    expect(o.result?.outcome, describeFailure(o)).toBe('complete');
    expect(o.result.iterations).toBe(2);
    expect(o.result.bailouts).toBe(1);
    const starts = o.events.filter((e) => e.type === 'iteration-start');
    expect(starts.map((e) => e.fresh)).toEqual([true, true]);
    const sessions = o.logs.map((l) => /"session_id":"([^"]+)"/.exec(l)?.[1]);
    expect(sessions[0]).toBeDefined();
    expect(sessions[1]).not.toBe(sessions[0]);
  });

  it('resumes the same session after an iteration without a decision, with a short prompt', async () => {
    const o = await runScenario(spec('resume'));
    recordStreams(FIXTURES, 'resume', o);
    expect(o.result?.outcome, describeFailure(o)).toBe('complete');
    expect(o.result.iterations).toBe(2);
    const starts = o.events.filter((e) => e.type === 'iteration-start');
    expect(starts.map((e) => [e.fresh, e.prompt])).toEqual([
      [true, 'full'],
      [false, 'continue'],
    ]);
    const sessions = o.logs.map((l) => /"session_id":"([^"]+)"/.exec(l)?.[1]);
    expect(sessions[1]).toBe(sessions[0]);
    // The resumed request carries the first iteration's words: the CLI really continued.
    const second = served('resume').find((s) => s.turn === 1);
    expect(second?.body).toContain('Not done yet, thinking.');
  });

  it('a stop (iteration timeout) is an event and in the result; SIGINT lets Claude report its cost; nothing after it decides', async () => {
    const o = await runScenario(spec('slow', { args: ['--iteration-timeout', '5s', '--max-iterations', '1'] }));
    recordStreams(FIXTURES, 'slow-stopped', o);
    expect(o.result?.outcome, describeFailure(o)).toBe('exhausted');
    const stops = o.events.filter((e) => e.type === 'stop');
    expect(stops).toEqual([expect.objectContaining({ iteration: 1, cause: 'iteration_timeout' })]);
    expect(o.result.stops).toEqual([expect.objectContaining({ iteration: 1, cause: 'iteration_timeout' })]);
    // The tokens of the stopped iteration are counted: from Claude's result after SIGINT.
    expect(o.result.tokens.input).toBeGreaterThanOrEqual(TURN_USAGE.input_tokens);
    expect(o.result.costUsd, o.logs[0]).toBeGreaterThan(0);
  });

  it('an API key the API refuses (401) ends the run failed at once, quoting the error', async () => {
    api.refuse = { status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } };
    try {
      const o = await runScenario(spec('complete', { timeoutMs: 280_000 }));
      recordStreams(FIXTURES, 'auth-401', o);
      expect(o.result?.outcome, describeFailure(o)).toBe('failed');
      expect(o.result.iterations).toBe(1);
      expect(o.result.reason).toMatch(/401/);
    } finally {
      api.refuse = undefined;
    }
  });

  it('as root without IS_SANDBOX, the run says why Claude Code refused to start', async () => {
    if (process.getuid?.() !== 0) return; // the refusal only happens as root
    const o = await runScenario(spec('complete', { env: { ...spec('complete').env, IS_SANDBOX: '' } }));
    expect(o.result?.outcome, describeFailure(o)).toBe('failed');
    expect(o.result.reason).toContain('--dangerously-skip-permissions cannot be used with root');
    expect(existsSync(o.runDir)).toBe(true);
  });
});
