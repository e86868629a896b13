// The real opencode (pinned, from npm) driven by `ralph exec --agent opencode` against a local
// stand-in of an OpenAI-compatible Chat Completions API. See docs/agents.md, "The conformance suite".
import { join } from 'node:path';
import { ChatStandIn } from './chat-stand-in.js';
import { describeConformance } from './conformance.js';
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
});
