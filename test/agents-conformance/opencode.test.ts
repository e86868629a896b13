// The real opencode (pinned, from npm) driven by `ralph exec --agent opencode` against a local
// stand-in of an OpenAI-compatible Chat Completions API. See docs/agents.md, "The conformance suite".
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatStandIn } from './chat-stand-in.js';
import { describeFailure, recordStreams, runScenario, type RunSpec } from './harness.js';
import { CACHE_DIR, ensureInstalled, PINNED } from './install.js';

const pkg = PINNED.opencode!;
const OPENCODE_CACHE = join(CACHE_DIR, 'opencode-cache');
const FIXTURES = `opencode-${pkg.version}`;
let binDir = '';
let api: ChatStandIn;

beforeAll(async () => {
  binDir = ensureInstalled(pkg);
  api = await ChatStandIn.start(['bash']);
});
afterAll(async () => {
  await api?.close();
});

function spec(scenario: string, more: Partial<RunSpec> = {}): RunSpec {
  return {
    agent: 'opencode',
    scenario,
    binDir,
    env: {
      // opencode installs the provider package with npm on first use: its caches are kept across runs.
      XDG_CACHE_HOME: OPENCODE_CACHE,
      npm_config_cache: join(OPENCODE_CACHE, 'npm'),
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_AUTOUPDATE: '1',
    },
    // An OpenAI-compatible provider pointed at the stand-in, and chosen as the model.
    homeFiles: {
      '.config/opencode/opencode.json': JSON.stringify({
        $schema: 'https://opencode.ai/config.json',
        provider: {
          standin: {
            npm: '@ai-sdk/openai-compatible',
            name: 'stand-in',
            options: { baseURL: api.url, apiKey: 'stand-in-key' },
            models: { 'stand-in-model': { name: 'stand-in model', tool_call: true } },
          },
        },
        model: 'standin/stand-in-model',
        small_model: 'standin/stand-in-model',
        autoupdate: false,
        share: 'disabled',
      }),
    },
    ...more,
  };
}

const served = (scenario: string) => api.served.filter((s) => s.scenario === scenario);

describe(`opencode ${pkg.version} through ralph exec --agent opencode`, () => {
  it('completes: the summary written by a tool call, an observation recorded, tokens counted', async () => {
    const before = { ...api.reported };
    const o = await runScenario(spec('complete'));
    recordStreams(FIXTURES, 'complete', o);
    expect(o.result?.outcome, `${describeFailure(o)}\npaths: ${api.paths.join(' ')}`).toBe('complete');
    expect(o.findings.map((f) => f.title)).toEqual(['Greeting file added']);
    expect(readFileSync(join(o.dir, 'work/greeting.txt'), 'utf8')).toBe('hello\n');
    expect(served('complete').length).toBe(3);
    expect(o.result.tokens).toEqual({
      input: api.reported.input - before.input,
      output: api.reported.output - before.output,
      cacheRead: api.reported.cacheRead - before.cacheRead,
      cacheWrite: 0,
    });
  });

  it("ignores ###PLAN_COMPLETE### in a command's output", async () => {
    const o = await runScenario(spec('toolsignal', { args: ['--max-iterations', '1'] }));
    recordStreams(FIXTURES, 'toolsignal', o);
    expect(o.result?.outcome, describeFailure(o)).toBe('exhausted');
    expect(o.result.signals).toEqual([]);
  });

  it('starts a fresh session after a bailout', async () => {
    const o = await runScenario(spec('bailout'));
    recordStreams(FIXTURES, 'bailout', o);
    expect(o.result?.outcome, describeFailure(o)).toBe('complete');
    expect(o.result.bailouts).toBe(1);
  });

  it('resumes the session after an iteration without a decision', async () => {
    const o = await runScenario(spec('resume'));
    recordStreams(FIXTURES, 'resume', o);
    expect(o.result?.outcome, describeFailure(o)).toBe('complete');
    const starts = o.events.filter((e) => e.type === 'iteration-start');
    expect(starts.map((e) => [e.fresh, e.prompt])).toEqual([
      [true, 'full'],
      [false, 'continue'],
    ]);
    expect(served('resume').find((s) => s.turn === 1)?.body).toContain('Not done yet, thinking.');
  });
});
