// The real opencode (pinned, from npm) driven by `ralph exec --agent opencode` against a local
// stand-in of an OpenAI-compatible Chat Completions API. See docs/agents.md, "The conformance suite".
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { ChatStandIn } from './chat-stand-in.js';
import { itPassesCommonScenarios, type RunSpec } from './harness.js';
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

describe(`opencode ${pkg.version} through ralph exec --agent opencode`, () => {
  itPassesCommonScenarios(FIXTURES, () => api, spec);
});
