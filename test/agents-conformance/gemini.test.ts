// The real Gemini CLI (pinned, from npm) driven by `ralph exec --agent gemini` against a local
// stand-in of the Gemini API. See docs/agents.md, "The conformance suite".
import { describeConformance } from './conformance.js';
import { GeminiStandIn } from './gemini-stand-in.js';
import { PINNED } from './install.js';

const pkg = PINNED.gemini!;

describeConformance({
  pkg,
  title: 'Gemini CLI',
  fixtures: `gemini-cli-${pkg.version}`,
  startStandIn: () => GeminiStandIn.start(),
  pointAt: (api) => ({
    env: { GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_API_KEY: 'stand-in-key', GEMINI_CLI_TRUST_WORKSPACE: 'true' },
    // The API-key auth, chosen once in the user's settings as `gemini` would ask interactively.
    homeFiles: { '.gemini/settings.json': JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }) },
  }),
  streamFormat: 'gemini-json',
  conversation: { word: 'session', id: /"session_id":"([^"]+)"/ },
});
