// The real Codex CLI (pinned, from npm) driven by `ralph exec --agent codex` against a local
// stand-in of the Responses API. See docs/agents.md, "The conformance suite".
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeConformance } from './conformance.js';
import { describeFailure, runScenario } from './harness.js';
import { PINNED } from './install.js';
import { ResponsesStandIn } from './responses-stand-in.js';

const pkg = PINNED.codex!;

describeConformance({
  pkg,
  title: 'Codex',
  fixtures: `codex-${pkg.version}`,
  startStandIn: () => ResponsesStandIn.start(),
  pointAt: (api) => ({
    env: { STANDIN_API_KEY: 'sk-stand-in' },
    // A model provider pointed at the stand-in, in the throwaway HOME's CODEX_HOME (~/.codex).
    homeFiles: {
      '.codex/config.toml': [
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
    },
  }),
  streamFormat: 'codex-json',
  conversation: { word: 'thread', id: /"thread_id":"([^"]+)"/ },
  // ChatGPT's usage limit as the Responses API sends it: Codex words it "You've hit your usage limit … try again at H:MM PM".
  limit: {
    status: 429,
    body: () => ({ error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_at: Math.floor(Date.now() / 1000) + 20 } }),
    kind: 'usage',
  },
}, ({ api, spec }) => {
  it("sandboxed (--sandbox on, docs/sandbox.md): runs without its own sandbox inside ralph's and completes the plan", async () => {
    // Codex names its API in config.toml, not in a variable ralph reads: the project allows the host.
    const host = new URL(api().url).host;
    const o = await runScenario(spec('complete', { args: ['--sandbox', 'on'], files: { 'ralph.config.yaml': `sandbox:\n  allow_hosts: ["${host}"]\n` } }));
    expect(o.result?.outcome, describeFailure(o)).toBe('complete');
    expect(o.result.sandbox.mode).toBe('on');
    expect(readFileSync(join(o.dir, 'work/greeting.txt'), 'utf8')).toBe('hello\n');
    const agent = o.events.find((e) => e.type === 'agent');
    expect(agent.command).toContain('--sandbox'); // the preset as written; ralph swaps it when it wraps
    // Refused, and reported, is only what is not its API: its update check (api.github.com) and
    // ChatGPT's feature flags (ab.chatgpt.com) (docs/sandbox.md).
    const refused = o.result.sandbox.refusals.filter((r: { target: string }) => !['api.github.com:443', 'ab.chatgpt.com:443'].includes(r.target));
    expect(refused, JSON.stringify(o.result.sandbox)).toEqual([]);
  });
});
