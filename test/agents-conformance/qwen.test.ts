// The real Qwen Code (pinned, from npm) driven by `ralph exec --agent qwen` against a local
// stand-in of an OpenAI-compatible Chat Completions API. See docs/agents.md, "The conformance suite".
import { afterAll, beforeAll, describe } from 'vitest';
import { ChatStandIn } from './chat-stand-in.js';
import { itPassesCommonScenarios, type RunSpec } from './harness.js';
import { ensureInstalled, PINNED } from './install.js';

const pkg = PINNED.qwen!;
const FIXTURES = `qwen-code-${pkg.version}`;
let binDir = '';
let api: ChatStandIn;

beforeAll(async () => {
  binDir = ensureInstalled(pkg);
  api = await ChatStandIn.start(['run_shell_command']);
});
afterAll(async () => {
  await api?.close();
});

function spec(scenario: string, more: Partial<RunSpec> = {}): RunSpec {
  return {
    agent: 'qwen',
    scenario,
    binDir,
    env: { OPENAI_BASE_URL: api.url, OPENAI_API_KEY: 'stand-in-key', OPENAI_MODEL: 'stand-in-model', QWEN_CODE_TRUST_WORKSPACE: 'true' },
    // The OpenAI-compatible auth, chosen once in the user's settings as `qwen` would ask interactively.
    homeFiles: { '.qwen/settings.json': JSON.stringify({ security: { auth: { selectedType: 'openai' } } }) },
    ...more,
  };
}

describe(`Qwen Code ${pkg.version} through ralph exec --agent qwen`, () => {
  itPassesCommonScenarios(FIXTURES, () => api, spec);
});
