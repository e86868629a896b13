// --checkpoint (docs/deliver.md#checkpoints) through the built CLI: a commit on the plan's branch
// after every iteration that changed files, with the iteration and decision in its message;
// deliver.squash folds them into one; ralph exec --pr commits on ralph/<plan>/<run> without
// touching the user's checkout and opens the pull request from it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runRalph } from '../helpers/run-ralph.js';
import { GitHubStandIn } from './github-stand-in.js';
import { git, makeRepo } from './helpers.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'deliver', 'agent.mjs');
const PLAN = '---\nmax_iterations: 5\nverify:\n  - test -f step-3.txt\n---\n# s\n\n<!-- agent: steps -->\n\n<tasks>\n<task><name>only</name><action>step</action><done>done</done></task>\n</tasks>\n';

let gh: GitHubStandIn | undefined;
afterEach(async () => gh?.stop());

describe('checkpoints (built CLI)', () => {
  it('batch: one commit per iteration that changed files, then squashed with deliver.squash', async () => {
    const r = makeRepo({ 'plans/s.md': PLAN });
    const start = git(r.repo, 'rev-parse', 'main');
    const first = await runRalph(['batch', 'plans', '--checkpoint', '--out', '.ralph/batches/one', '--', process.execPath, AGENT], { cwd: r.repo });
    expect(first.code).toBe(0);
    const branch = git(r.repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/ralph/');
    expect(git(r.repo, 'log', '--format=%s', `${start}..${branch}`).split('\n')).toEqual(['ralph checkpoint: s iteration 3 (decision: complete)', 'ralph checkpoint: s iteration 1 (decision: none)']);
    expect(git(r.repo, 'show', '--name-only', '--format=', `${branch}~1`)).toBe('step-1.txt');

    const config = join(r.dir, 'squash.yaml');
    writeFileSync(config, 'deliver:\n  checkpoint: true\n  squash: true\n');
    const second = await runRalph(['batch', 'plans', '--config', config, '--out', '.ralph/batches/two', '--', process.execPath, AGENT], { cwd: r.repo });
    expect(second.code).toBe(0);
    const squashed = git(r.repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/ralph/').split('\n').find((b) => b !== branch)!;
    expect(git(r.repo, 'log', '--format=%s', `${start}..${squashed}`)).toBe('ralph: s complete (run s, attempt 1)');
    expect(git(r.repo, 'diff', '--name-only', start, squashed).split('\n').sort()).toEqual(['plans/s.summary.json', 'step-1.txt', 'step-3.txt']);
  });

  it('exec --pr --checkpoint: ralph/<plan>/<run> holds the steps, the checkout is untouched, the pull request is opened from it', async () => {
    const r = makeRepo({ 'plans/s.md': PLAN });
    gh = await new GitHubStandIn({ owner: 'acme', repo: 'widgets', tokens: { t: { login: 'n', scopes: ['repo'] } }, headSha: (b) => r.remoteHead(b) ?? '' }).start();
    const start = git(r.repo, 'rev-parse', 'main');
    const run = await runRalph(['exec', '--pr', 'plans/s.md', '--checkpoint', '--', process.execPath, AGENT], { cwd: r.repo, env: { GITHUB_TOKEN: 't', GH_TOKEN: '', GITHUB_API_URL: gh.url } });
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/ralph: pull request #1 opened https:\/\/github.com\/acme\/widgets\/pull\/1/);
    // The checkout: still main at the start, with the agent's files in it as it left them.
    expect(git(r.repo, 'rev-parse', 'HEAD')).toBe(start);
    expect(git(r.repo, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(readFileSync(join(r.repo, 'step-3.txt'), 'utf8')).toBe('3\n');
    const branch = git(r.repo, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/ralph/s/');
    expect(branch).toMatch(/^ralph\/s\/\d{8}-\d{6}/);
    expect(git(r.repo, 'log', '--format=%s', `${start}..${branch}`).split('\n')).toEqual(['ralph checkpoint: s iteration 3 (decision: complete)', 'ralph checkpoint: s iteration 1 (decision: none)']);
    expect(gh.pulls).toHaveLength(1);
    expect(gh.pulls[0]).toMatchObject({ head: 'ralph/pr/s', base: 'main', draft: false, headSha: git(r.repo, 'rev-parse', branch) });
    expect(gh.pulls[0]!.body).toMatch(/\| test -f step-3\.txt \| passed \|/);
    expect(gh.pulls[0]!.body).toContain('- Iterations: 3');
    const runId = branch.split('/').at(-1)!;
    const result = JSON.parse(readFileSync(join(r.repo, '.ralph', 'runs', runId, 'result.json'), 'utf8')) as { outcome: string; prUrl: string; delivery: { note: string; failed: boolean } };
    expect(result).toMatchObject({ outcome: 'complete', prUrl: 'https://github.com/acme/widgets/pull/1', delivery: { note: 'pull request #1 opened', failed: false } });
  });
});
