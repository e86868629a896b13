// The real Codex CLI (pinned, from npm) driven by `ralph exec --agent codex` against a local
// stand-in of the Responses API. See docs/agents.md, "The conformance suite".
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFailure, recordStreams, runScenario, type RunSpec } from './harness.js';
import { ensureInstalled, PINNED } from './install.js';
import { ResponsesStandIn, TURN_USAGE } from './responses-stand-in.js';

const pkg = PINNED.codex!;
const FIXTURES = `codex-${pkg.version}`;
let binDir = '';
let api: ResponsesStandIn;
let codexHome = '';

beforeAll(async () => {
  binDir = ensureInstalled(pkg);
  api = await ResponsesStandIn.start();
  codexHome = mkdtempSync(join(tmpdir(), 'ralph-codex-home-'));
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    join(codexHome, 'config.toml'),
    [
      'model = "gpt-5-codex"',
      'model_provider = "standin"',
      '',
      '[model_providers.standin]',
      'name = "stand-in"',
      `base_url = "${api.url}"`,
      'wire_api = "responses"',
      'env_key = "STANDIN_API_KEY"',
      '',
    ].join('\n'),
  );
});
afterAll(async () => {
  await api?.close();
});

function spec(scenario: string, more: Partial<RunSpec> = {}): RunSpec {
  return { agent: 'codex', scenario, binDir, env: { CODEX_HOME: codexHome, STANDIN_API_KEY: 'sk-stand-in' }, ...more };
}

const served = (scenario: string) => api.served.filter((s) => s.scenario === scenario);

describe(`Codex ${pkg.version} through ralph exec --agent codex`, () => {
  it('completes: the summary written by a tool call, an observation recorded, tokens counted', async () => {
    const before = { ...api.reported };
    const o = await runScenario(spec('complete'));
    recordStreams(FIXTURES, 'complete', o);
    expect(o.result?.outcome, describeFailure(o)).toBe('complete');
    expect(o.result.iterations).toBe(1);
    expect(o.findings.map((f) => f.title)).toEqual(['Greeting file added']);
    expect(readFileSync(join(o.dir, 'work/greeting.txt'), 'utf8')).toBe('hello\n');
    expect(served('complete').length).toBe(3);
    expect(o.result.tokens).toEqual({
      input: api.reported.input - before.input,
      output: api.reported.output - before.output,
      cacheRead: api.reported.cacheRead - before.cacheRead,
      cacheWrite: 0,
    });
    const agentEvent = o.events.find((e) => e.type === 'agent');
    expect(agentEvent?.streamFormat).toBe('codex-json');
  });

  it("ignores ###PLAN_COMPLETE### in a command's output", async () => {
    const o = await runScenario(spec('toolsignal', { args: ['--max-iterations', '1'] }));
    recordStreams(FIXTURES, 'toolsignal', o);
    expect(o.result?.outcome, describeFailure(o)).toBe('exhausted');
    expect(o.result.signals).toEqual([]);
    expect(o.logs[0]).toContain('###PLAN_COMPLETE###');
  });

  it('starts a fresh thread after a bailout', async () => {
    const o = await runScenario(spec('bailout'));
    recordStreams(FIXTURES, 'bailout', o);
    expect(o.result?.outcome, describeFailure(o)).toBe('complete');
    expect(o.result.bailouts).toBe(1);
    const threads = o.logs.map((l) => /"thread_id":"([^"]+)"/.exec(l)?.[1]);
    expect(threads[0]).toBeDefined();
    expect(threads[1]).not.toBe(threads[0]);
  });

  it('resumes the thread after an iteration without a decision; tokens are not counted twice', async () => {
    const before = { ...api.reported };
    const o = await runScenario(spec('resume'));
    recordStreams(FIXTURES, 'resume', o);
    expect(o.result?.outcome, describeFailure(o)).toBe('complete');
    expect(o.result.iterations).toBe(2);
    const starts = o.events.filter((e) => e.type === 'iteration-start');
    expect(starts.map((e) => [e.fresh, e.prompt])).toEqual([
      [true, 'full'],
      [false, 'continue'],
    ]);
    const threads = o.logs.map((l) => /"thread_id":"([^"]+)"/.exec(l)?.[1]);
    expect(threads[1]).toBe(threads[0]);
    expect(served('resume').find((s) => s.turn === 1)?.body).toContain('Not done yet, thinking.');
    // Codex reports the thread's running total after a resume; ralph counts each token once.
    expect(o.result.tokens.input).toBe(api.reported.input - before.input);
    expect(o.result.tokens.cacheRead).toBe(served('resume').length * TURN_USAGE.cached_tokens);
  });
});
