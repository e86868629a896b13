// The real Gemini CLI (pinned, from npm) driven by `ralph exec --agent gemini` against a local
// stand-in of the Gemini API. See docs/agents.md, "The conformance suite".
import { afterAll, beforeAll, describe } from 'vitest';
import { GeminiStandIn } from './gemini-stand-in.js';
import { itPassesCommonScenarios, type RunSpec } from './harness.js';
import { ensureInstalled, PINNED } from './install.js';

const pkg = PINNED.gemini!;
const FIXTURES = `gemini-cli-${pkg.version}`;
let binDir = '';
let api: GeminiStandIn;

beforeAll(async () => {
  binDir = ensureInstalled(pkg);
  api = await GeminiStandIn.start();
});
afterAll(async () => {
  await api?.close();
});

function spec(scenario: string, more: Partial<RunSpec> = {}): RunSpec {
  return {
    agent: 'gemini',
    scenario,
    binDir,
    env: { GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_API_KEY: 'stand-in-key', GEMINI_CLI_TRUST_WORKSPACE: 'true' },
    // The API-key auth, chosen once in the user's settings as `gemini` would ask interactively.
    homeFiles: { '.gemini/settings.json': JSON.stringify({ security: { auth: { selectedType: 'gemini-api-key' } } }) },
    ...more,
  };
}

describe(`Gemini CLI ${pkg.version} through ralph exec --agent gemini`, () => {
  itPassesCommonScenarios(FIXTURES, () => api, spec);
});
