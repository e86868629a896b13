// The real Qwen Code (pinned, from npm) driven by `ralph exec --agent qwen` against a local
// stand-in of an OpenAI-compatible Chat Completions API. See docs/agents.md, "The conformance suite".
import { ChatStandIn } from './chat-stand-in.js';
import { describeConformance } from './conformance.js';
import { PINNED } from './install.js';

const pkg = PINNED.qwen!;

describeConformance({
  pkg,
  title: 'Qwen Code',
  fixtures: `qwen-code-${pkg.version}`,
  startStandIn: () => ChatStandIn.start(['run_shell_command']),
  pointAt: (api) => ({
    env: { OPENAI_BASE_URL: api.url, OPENAI_API_KEY: 'stand-in-key', OPENAI_MODEL: 'stand-in-model', QWEN_CODE_TRUST_WORKSPACE: 'true' },
    // The OpenAI-compatible auth, chosen once in the user's settings as `qwen` would ask interactively.
    homeFiles: { '.qwen/settings.json': JSON.stringify({ security: { auth: { selectedType: 'openai' } } }) },
  }),
  streamFormat: 'qwen-json',
  conversation: { word: 'session', id: /"session_id":"([^"]+)"/ },
});
