// The real Claude Code CLI (pinned, from npm) driven by `ralph exec --agent claude` against a local
// stand-in of the Messages API. See docs/agents.md, "The conformance suite".
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { AnthropicStandIn, TURN_USAGE } from './anthropic-stand-in.js';
import { describeConformance } from './conformance.js';
import { describeFailure, recordStreams, runScenario } from './harness.js';
import { PINNED } from './install.js';

const pkg = PINNED.claude!;
const FIXTURES = `claude-code-${pkg.version}`;

describeConformance(
  {
    pkg,
    title: 'Claude Code',
    fixtures: FIXTURES,
    startStandIn: () => AnthropicStandIn.start(),
    pointAt: (api) => ({
      env: {
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: 'sk-ant-stand-in',
        // Claude Code refuses --dangerously-skip-permissions as root without it.
        IS_SANDBOX: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
      },
    }),
    streamFormat: 'claude-json',
    conversation: { word: 'session', id: /"session_id":"([^"]+)"/ },
    alsoComplete: (o, turns) => {
      expect(o.result.tokens.input).toBe(turns * TURN_USAGE.input_tokens);
      expect(o.result.costUsd).toBeGreaterThan(0);
    },
  },
  ({ api, spec }) => {
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
      api().refuse = { status: 401, body: { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } } };
      try {
        const o = await runScenario(spec('complete', { timeoutMs: 280_000 }));
        recordStreams(FIXTURES, 'auth-401', o);
        expect(o.result?.outcome, describeFailure(o)).toBe('failed');
        expect(o.result.iterations).toBe(1);
        expect(o.result.reason).toMatch(/401/);
      } finally {
        api().refuse = undefined;
      }
    });

    it("sandboxed (--sandbox on, docs/sandbox.md): completes the plan against the stand-in, its writes in the tree and its own state folder only", async () => {
      // No IS_SANDBOX from the test: inside ralph's sandbox the preset sets it (Claude Code
      // refuses --dangerously-skip-permissions as root otherwise).
      const o = await runScenario(spec('complete', { args: ['--sandbox', 'on'], env: { ...spec('complete').env, IS_SANDBOX: '' } }));
      expect(o.result?.outcome, describeFailure(o)).toBe('complete');
      expect(o.result.sandbox.mode).toBe('on');
      expect(readFileSync(join(o.dir, 'work/greeting.txt'), 'utf8')).toBe('hello\n');
      expect(o.events.find((e) => e.type === 'sandbox')).toMatchObject({ mode: 'on', hosts: expect.arrayContaining([new URL(api().url).host]) });
      // Claude Code kept its state where the preset says it may.
      expect(existsSync(join(o.home, '.claude'))).toBe(true);
      // Whatever it was refused is reported, never silently lost (and nothing it needed was).
      // The one refusal expected: Claude Code cannot replace ~/.claude.json (its lock and temp
      // files go beside it, in the home folder), counted as that file (docs/sandbox.md).
      const refused = o.result.sandbox.refusals.filter((r: { target: string }) => r.target !== join(o.home, '.claude.json'));
      expect(refused, JSON.stringify(o.result.sandbox)).toEqual([]);
    });

    it('as root without IS_SANDBOX, the run says why Claude Code refused to start', async () => {
      if (process.getuid?.() !== 0) return; // the refusal only happens as root
      const o = await runScenario(spec('complete', { env: { ...spec('complete').env, IS_SANDBOX: '' } }));
      expect(o.result?.outcome, describeFailure(o)).toBe('failed');
      expect(o.result.reason).toContain('--dangerously-skip-permissions cannot be used with root');
      expect(existsSync(o.runDir)).toBe(true);
    });
  },
);
