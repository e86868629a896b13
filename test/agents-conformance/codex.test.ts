// The real Codex CLI (pinned, from npm) driven by `ralph exec --agent codex` against a local
// stand-in of the Responses API. See docs/agents.md, "The conformance suite".
import { describeConformance } from './conformance.js';
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
});
