// `ralph batch --pr draft` with a plan the batch stopped at --plan-timeout (built CLI, bare
// remote, GitHub stand-in): the draft's body shows the outcome and reason the batch recorded,
// not what the interrupted run's result.json says (docs/deliver.md "The pull request").
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runRalph } from '../helpers/run-ralph.js';
import { GitHubStandIn } from './github-stand-in.js';
import { makeRepo } from './helpers.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'deliver', 'agent.mjs');
const PLAN = '---\nmax_iterations: 2\nverify:\n  - test -f slow.txt\n---\n# slow\n\n<!-- agent: hang slow.txt started -->\n\n<tasks>\n<task><name>only</name><action>a</action><done>d</done></task>\n</tasks>\n';

let gh: GitHubStandIn | undefined;
afterEach(async () => gh?.stop());

describe('ralph batch --pr draft, a timed-out plan (built CLI)', () => {
  it('opens a draft whose body says timed_out and the plan timeout, as the result file does', async () => {
    const r = makeRepo({ 'plans/slow.md': PLAN });
    gh = await new GitHubStandIn({ owner: 'acme', repo: 'widgets', tokens: { t: { login: 'n', scopes: ['repo'] } }, headSha: (b) => r.remoteHead(b) ?? '0'.repeat(40) }).start();
    const run = await runRalph(['batch', 'plans', '--pr', 'draft', '--plan-timeout', '1s', '--out', 'out', '--', process.execPath, AGENT], {
      cwd: r.repo,
      env: { GITHUB_TOKEN: 't', GH_TOKEN: '', GITHUB_API_URL: gh.url },
    });
    expect(run.code, run.stderr).toBe(1);
    expect(gh.pulls).toHaveLength(1);
    const body = gh.pulls[0]!.body;
    expect(gh.pulls[0]!.draft).toBe(true);
    expect(body).toContain('and it ended **timed_out**');
    expect(body).toContain('- Outcome: timed_out');
    expect(body).toMatch(/- Reason: plan timeout of 1s reached/);
  });
});
