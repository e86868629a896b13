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
  // The Gemini API's daily quota (a per-day quota id): Gemini CLI's TerminalQuotaError, "You have exhausted your daily quota".
  limit: {
    status: 429,
    body: () => ({
      error: {
        code: 429,
        message: 'You exceeded your current quota, please check your plan and billing details.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 50, model: gemini-2.5-pro\nPlease retry in 20.5s.',
        status: 'RESOURCE_EXHAUSTED',
        details: [
          { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' }] },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '20.5s' },
        ],
      },
    }),
    kind: 'usage',
  },
});
