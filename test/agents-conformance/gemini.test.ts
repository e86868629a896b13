// The real Gemini CLI (pinned, from npm) driven by `ralph exec --agent gemini` against a local
// stand-in of the Gemini API. See docs/agents.md, "The conformance suite".
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { describeConformance } from './conformance.js';
import { GeminiStandIn } from './gemini-stand-in.js';
import { describeFailure, runScenario } from './harness.js';
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
}, ({ api, spec }) => {
  it("sandboxed (--sandbox on, docs/sandbox.md): completes the plan against the stand-in, its writes in the tree and its own state folder only", async () => {
    // The user chose Gemini CLI's own sandbox (a Docker or Podman container): inside ralph's the preset
    // turns it off (else the run fails: the container cannot start, docs/sandbox.md).
    const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, tools: { sandbox: true } };
    const o = await runScenario(spec('complete', { args: ['--sandbox', 'on'], homeFiles: { '.gemini/settings.json': JSON.stringify(settings) } }));
    expect(o.result?.outcome, describeFailure(o)).toBe('complete');
    expect(o.result.sandbox.mode).toBe('on');
    expect(readFileSync(join(o.dir, 'work/greeting.txt'), 'utf8')).toBe('hello\n');
    // The stand-in's host came from GOOGLE_GEMINI_BASE_URL, as a gateway's would.
    expect(o.events.find((e) => e.type === 'sandbox')).toMatchObject({ mode: 'on', hosts: expect.arrayContaining([new URL(api().url).host]) });
    expect(existsSync(join(o.home, '.gemini'))).toBe(true);
    // Nothing it needed was refused. Its usage statistics (Clearcut, play.googleapis.com) are
    // not its API: refused and reported, unless the user's settings turn them off.
    const refused = o.result.sandbox.refusals.filter((r: { target: string }) => !r.target.startsWith('play.googleapis.com:'));
    expect(refused, JSON.stringify(o.result.sandbox)).toEqual([]);
  });
});
