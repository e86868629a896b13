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
});
