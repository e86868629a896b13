// The held-out bar of docs/deliver.md, through the built CLI: a batch of four plans against a
// bare remote and the GitHub stand-in. The two accepted plans get one pull request each whose
// bodies name their verify commands and findings; the failed one gets none (a draft with
// --pr draft); running the batch again updates the pull requests instead of adding new ones.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT, runRalph } from '../helpers/run-ralph.js';
import { GitHubStandIn } from './github-stand-in.js';
import { makeRepo, type TestRepo } from './helpers.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'deliver', 'agent.mjs');

function plan(id: string, behaviour: string, verify: string[]): string {
  const list = verify.length ? `\nverify:\n${verify.map((v) => `  - ${JSON.stringify(v)}`).join('\n')}` : '';
  return `---\nmax_iterations: 2${list}\n---\n# ${id}\n\n<!-- agent: ${behaviour} -->\n\n<objective>\nMake ${id}.txt say ${id}.\n</objective>\n\n<tasks>\n<task><name>only</name><action>write it</action><done>it is there</done></task>\n</tasks>\n`;
}

let gh: GitHubStandIn | undefined;
afterEach(async () => gh?.stop());

function setUp(): { r: TestRepo; env: NodeJS.ProcessEnv } {
  const r = makeRepo({
    'README.md': 'widgets\n',
    'plans/alpha.md': plan('alpha', 'write alpha.txt alpha', ['test -f alpha.txt', 'grep -q alpha alpha.txt']),
    'plans/beta.md': plan('beta', 'write beta.txt beta', ['grep -q beta beta.txt']),
    'plans/gamma.md': plan('gamma', 'fail gamma.txt half-done', ['false']),
    'plans/delta.md': plan('delta', 'block delta.txt started', []),
  });
  gh = new GitHubStandIn({ owner: 'acme', repo: 'widgets', tokens: { 'night-token': { login: 'night', scopes: ['repo'] } }, headSha: (b) => r.remoteHead(b) ?? '0'.repeat(40) });
  return { r, env: { GITHUB_TOKEN: 'night-token', GH_TOKEN: '' } };
}

describe('ralph batch --pr (built CLI, bare remote, GitHub stand-in)', () => {
  it('two accepted plans get a pull request each; the failed and blocked get none; --pr draft adds drafts; a second batch updates them', async () => {
    const { r, env } = setUp();
    await gh!.start();
    const run = (out: string, pr: string[]) =>
      runRalph(['batch', 'plans', ...pr, '--out', out, '--concurrency', '2', '--', process.execPath, AGENT], { cwd: r.repo, env: { ...env, GITHUB_API_URL: gh!.url } });

    const first = await run('out1', ['--pr']);
    expect(first.stderr).not.toMatch(/^ralph: /m);
    expect(first.code).toBe(1); // gamma failed
    expect(gh!.pulls.map((p) => [p.head, p.base, p.draft]).sort()).toEqual([
      ['ralph/pr/alpha', 'main', false],
      ['ralph/pr/beta', 'main', false],
    ]);
    const alpha = gh!.pulls.find((p) => p.head === 'ralph/pr/alpha')!;
    // The body names each verify command with its result, and the findings, escaped.
    expect(alpha.body).toMatch(/\| test -f alpha\.txt \| passed \| \d+ms \|/);
    expect(alpha.body).toMatch(/\| grep -q alpha alpha\.txt \| passed \|/);
    expect(alpha.body).toContain('alpha touches alpha.txt &lt;img src=x&gt; @\u200bocto');
    expect(alpha.body).toContain('\\[click\\]\\(https\\://evil.example\\)');
    expect(alpha.body).not.toMatch(/<img|\]\(https:\/\/evil/);
    expect(alpha.body).toContain('> Make alpha.txt say alpha.');
    expect(alpha.body).toMatch(/\| only \| done \|/);
    expect(alpha.body).toContain('- Iterations: 1');
    expect(alpha.body).toContain('out1/runs/alpha');
    expect(alpha.title).toBe('ralph: alpha: Make alpha.txt say alpha.');
    // The branch is on the remote, holding the plan's work; the pull request points at it.
    const pushed = r.remoteHead('ralph/pr/alpha');
    expect(pushed).not.toBeNull();
    expect(alpha.headSha).toBe(pushed);
    expect(r.remoteHead('ralph/pr/gamma')).toBeNull();
    const result = (id: string, out = 'out1') => readFileSync(join(r.repo, out, `${id}.md`), 'utf8');
    expect(result('alpha')).toContain(`- PR URL: https://github.com/acme/widgets/pull/${alpha.number}`);
    expect(result('alpha')).toContain(`- Delivery: pull request \\#${alpha.number} opened`);
    expect(result('gamma')).toContain('- Delivery: no pull request: the plan ended failed \\(--pr draft opens drafts');
    expect(readFileSync(join(r.repo, 'out1', 'index.md'), 'utf8')).not.toContain('delivery failed');

    // Again, with drafts: alpha and beta are updated (same numbers), gamma and delta open as drafts.
    const second = await run('out2', ['--pr', 'draft']);
    expect(second.code).toBe(1);
    const byHead = (head: string) => gh!.pulls.filter((p) => p.head === head);
    expect(byHead('ralph/pr/alpha')).toHaveLength(1);
    expect(byHead('ralph/pr/beta')).toHaveLength(1);
    expect(byHead('ralph/pr/alpha')[0]!.body).toContain('out2/runs/alpha');
    expect(result('alpha', 'out2')).toContain(`- Delivery: pull request \\#${alpha.number} updated`);
    expect(gh!.pulls).toHaveLength(4);
    const gamma = byHead('ralph/pr/gamma')[0]!;
    expect(gamma.draft).toBe(true);
    expect(gamma.body).toContain('### Why this is a draft');
    expect(gamma.body).toMatch(/- Outcome: failed\n- Reason: .*only/);
    // It failed by its own signal: the gate never ran its verify command, and the body says so.
    expect(gamma.body).toContain('| false | not run | - |');
    const delta = byHead('ralph/pr/delta')[0]!;
    expect(delta.draft).toBe(true);
    expect(delta.body).toContain('The staging key is missing');
    expect(result('delta', 'out2')).toMatch(/- Delivery: pull request \\#\d+ opened as a draft/);
  });

  it('a forge that fails when the plan is done: the branch stays pushed, the error is in the result and the index, the outcome is unchanged', async () => {
    const { r, env } = setUp();
    await gh!.start();
    gh!.failWrites = true;
    const out = await runRalph(['batch', 'plans/alpha.md', '--pr', '--out', 'o', '--', process.execPath, AGENT], { cwd: r.repo, env: { ...env, GITHUB_API_URL: gh!.url } });
    expect(out.code).toBe(0);
    const text = readFileSync(join(r.repo, 'o', 'alpha.md'), 'utf8');
    expect(text).toContain('- Outcome: complete');
    expect(text).toMatch(/- Delivery: failed: pull request not opened: opening a pull request for ralph\/pr\/alpha: GitHub answered 500 Server Error; the branch is pushed as ralph\/pr\/alpha/);
    expect(readFileSync(join(r.repo, 'o', 'index.md'), 'utf8')).toMatch(/alpha: delivery failed: pull request not opened/);
    expect(r.remoteHead('ralph/pr/alpha')).not.toBeNull();
  });

  it('preflight: a remote that is not GitHub, a token GitHub refuses: one line, exit 64, nothing runs', async () => {
    const { r, env } = setUp();
    await gh!.start();
    const bad = await runRalph(['batch', 'plans', '--pr', '--out', 'o', '--', process.execPath, AGENT], { cwd: r.repo, env: { ...env, GITHUB_TOKEN: 'stolen', GITHUB_API_URL: gh!.url } });
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/^ralph: --pr: reading GitHub acme\/widgets: GitHub refused the token \(401 Bad credentials\)/);
    expect(existsSync(join(r.repo, 'o'))).toBe(false);
    const local = makeRepo({ 'plans/alpha.md': plan('alpha', 'write a.txt a', []) }, { plainRemote: true });
    const notGitHub = await runRalph(['batch', 'plans', '--pr', '--out', 'o', '--', process.execPath, AGENT], { cwd: local.repo, env: { ...env, GITHUB_API_URL: gh!.url } });
    expect(notGitHub.code).toBe(64);
    expect(notGitHub.stderr).toMatch(/^ralph: --pr: the remote origin \(\/.*\/remote\.git\) is not a GitHub repository's URL/);
    expect(existsSync(join(local.repo, 'o'))).toBe(false);
    expect(gh!.pulls).toHaveLength(0);
  });

  it('a GitLab remote: --pr (batch, exec) and land --forge refuse in one line and a hint, exit 64, before anything runs', async () => {
    const { r, env } = setUp();
    execFileSync('git', ['remote', 'set-url', 'origin', 'https://gitlab.com/acme/widgets.git'], { cwd: r.repo });
    const start = execFileSync('git', ['rev-parse', 'main'], { cwd: r.repo, encoding: 'utf8' });
    for (const args of [
      ['batch', 'plans', '--pr', '--out', 'o', '--', process.execPath, AGENT],
      ['exec', 'plans/alpha.md', '--pr', '--', process.execPath, AGENT],
      ['land', 'main', '--forge'],
    ]) {
      const flag = args.includes('--forge') ? '--forge' : '--pr';
      const run = await runRalph(args, { cwd: r.repo, env });
      expect(run.code, run.stderr).toBe(64);
      expect(run.stderr.trim().split('\n')).toEqual([
        `ralph: ${flag}: the remote origin is on gitlab.com: GitLab is not supported, ralph opens pull requests on GitHub only`,
        `push the branches and open merge requests yourself, or run without ${flag} (docs/deliver.md#forges-what-is-and-is-not-supported)`,
      ]);
    }
    expect(existsSync(join(r.repo, 'o'))).toBe(false);
    expect(existsSync(join(r.repo, '.ralph'))).toBe(false);
    expect(execFileSync('git', ['rev-parse', 'main'], { cwd: r.repo, encoding: 'utf8' })).toBe(start);
  });
});
