// The real opencode (pinned, from npm) driven by `ralph exec --agent opencode` against a local
// stand-in of an OpenAI-compatible Chat Completions API. See docs/agents.md, "The conformance suite".
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ChatStandIn } from './chat-stand-in.js';
import { describeConformance } from './conformance.js';
import { describeFailure, runScenario } from './harness.js';
import { CACHE_DIR, PINNED } from './install.js';

const pkg = PINNED.opencode!;
const OPENCODE_CACHE = join(CACHE_DIR, 'opencode-cache');

describeConformance({
  pkg,
  title: 'opencode',
  fixtures: `opencode-${pkg.version}`,
  startStandIn: () => ChatStandIn.start(['bash']),
  pointAt: (api) => ({
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
  }),
  streamFormat: 'opencode-json',
  conversation: { word: 'session', id: /"sessionID":"([^"]+)"/ },
}, ({ api, spec }) => {
  it("sandboxed (--sandbox on, docs/sandbox.md): completes the plan against the stand-in, its writes in the tree and its own state folders only", async () => {
    // opencode names its API in opencode.json, not in a variable ralph reads: the project allows the host.
    const host = new URL(api().url).host;
    const o = await runScenario(spec('complete', { args: ['--sandbox', 'on'], files: { 'ralph.config.yaml': `sandbox:\n  allow_hosts: ["${host}"]\n` } }));
    expect(o.result?.outcome, describeFailure(o)).toBe('complete');
    expect(o.result.sandbox.mode).toBe('on');
    expect(readFileSync(join(o.dir, 'work/greeting.txt'), 'utf8')).toBe('hello\n');
    expect(existsSync(join(o.home, '.local/share/opencode'))).toBe(true);
    // Its cache follows XDG_CACHE_HOME (set above, outside HOME): written there, not refused.
    // Refused, and reported, is only what is not its API: the npm install of its plugin package
    // that it starts in the background at every start, and goes on without (docs/sandbox.md).
    const npmCache = join(OPENCODE_CACHE, 'npm');
    const refused = o.result.sandbox.refusals.filter((r: { what: string; target: string }) => !(r.target === 'registry.npmjs.org:443' || (r.what === 'write' && r.target.startsWith(`${npmCache}/`))));
    expect(refused, JSON.stringify(o.result.sandbox)).toEqual([]);
  });
});
