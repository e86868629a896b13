// `ralph batch --queue --pr` end to end (docs/queue.md, docs/deliver.md): workers push each plan's
// branch; the coordinator, which alone holds the token, opens or updates the pull requests with
// bodies written from the reports. Real parts: Debian's redis-server, a bare remote on disk behind
// github.com/acme/widgets (test/deliver/helpers.ts), `ralph worker` processes of the built CLI, and
// the GitHub REST stand-in. Needs dist/ (npm run build).
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { GitHubStandIn } from '../deliver/github-stand-in.js';
import { makeRepo, type TestRepo } from '../deliver/helpers.js';
import { ralph, ROOT, startWorker, stopEverything, type Workspace } from './helpers.js';

const RUNS = redisAvailable('the queued --pr tests');
const TOKEN = 'night-token-0123456789';

function plan(id: string, behaviour: string, verify: string[]): string {
  const list = verify.length ? `\nverify:\n${verify.map((v) => `  - ${JSON.stringify(v)}`).join('\n')}` : '';
  return `---\nmax_iterations: 2${list}\n---\n# ${id}\n\n<!-- agent: ${behaviour} -->\n\n<objective>\nMake ${id}.txt say ${id}.\n</objective>\n\n<tasks>\n<task><name>only</name><action>write it</action><done>it is there</done></task>\n</tasks>\n`;
}

let redis: RedisServer | null = null;
let gh: GitHubStandIn | null = null;
const dirs: string[] = [];

beforeEach(async () => {
  if (RUNS) redis = await RedisServer.start();
});

afterEach(async () => {
  await stopEverything(dirs.splice(0));
  await gh?.stop();
  gh = null;
  await redis?.dispose();
  redis = null;
});

/** The repository posing as GitHub's, as a queue workspace, with the deliver tests' scripted agent. */
async function setUp(): Promise<{ r: TestRepo; w: Workspace; env: NodeJS.ProcessEnv }> {
  const r = makeRepo({
    'README.md': 'widgets\n',
    '.gitignore': 'out*/\n',
    'plans/alpha.md': plan('alpha', 'write alpha.txt alpha', ['test -f alpha.txt']),
    'plans/gamma.md': plan('gamma', 'fail gamma.txt half-done', ['false']),
  });
  dirs.push(r.dir);
  const agent = join(r.dir, 'agent.mjs');
  copyFileSync(join(ROOT, 'test', 'fixtures', 'deliver', 'agent.mjs'), agent);
  gh = new GitHubStandIn({ owner: 'acme', repo: 'widgets', tokens: { [TOKEN]: { login: 'night', scopes: ['repo'] } }, headSha: (b) => r.remoteHead(b) ?? '0'.repeat(40) });
  await gh.start();
  return { r, w: { dir: r.dir, remote: r.bare, repo: r.repo, agent }, env: { GITHUB_TOKEN: TOKEN, GH_TOKEN: '', GITHUB_API_URL: gh.url } };
}

/** Every value the batch left in Redis, as text: what went through the queue. */
async function everythingInRedis(url: string): Promise<string> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    const parts: string[] = [];
    for (const key of await client.keys('*')) {
      const type = await client.type(key);
      if (type === 'string') parts.push((await client.get(key)) ?? '');
      else if (type === 'hash') parts.push(JSON.stringify(await client.hgetall(key)));
      else if (type === 'list') parts.push(JSON.stringify(await client.lrange(key, 0, -1)));
      else if (type === 'zset') parts.push(JSON.stringify(await client.zrange(key, '0', '-1')));
      else if (type === 'stream') parts.push(JSON.stringify(await client.xrange(key, '-', '+')));
    }
    return parts.join('\n');
  } finally {
    client.disconnect();
  }
}

describe.skipIf(!RUNS)('ralph batch --queue --pr', () => {
  it('the coordinator opens the pull request of the accepted plan from the branch its worker pushed; --pr draft adds a draft; run again, it updates; no token goes through Redis', async () => {
    const { r, w, env } = await setUp();
    // The worker has no token of its own: it pushes with git's credentials, as any worker does.
    await startWorker(w, redis!.url, 'w1', { concurrency: 2, command: [process.execPath, w.agent], env: { GITHUB_TOKEN: '', GH_TOKEN: '' } });
    const batch = async (out: string, pr: string[]) => {
      const c = ralph(['batch', 'plans', '--queue', redis!.url, ...pr, '--out', out], r.repo, env);
      const code = await c.exited;
      return { code, stderr: c.stderr, result: (id: string) => readFileSync(join(r.repo, out, `${id}.md`), 'utf8') };
    };

    const first = await batch('out1', ['--pr']);
    expect(first.code, first.stderr).toBe(1); // gamma failed
    expect(first.stderr).not.toMatch(/^ralph: |warning/m);
    expect(gh!.pulls.map((p) => [p.head, p.base, p.draft])).toEqual([['ralph/pr/alpha', 'main', false]]);
    const alpha = gh!.pulls[0]!;
    // The worker's commit, pushed by it as ralph/<batch>/alpha, is what the pull request proposes.
    const batchId = JSON.parse(readFileSync(join(r.repo, 'out1', 'batch.json'), 'utf8')).batchId as string;
    const workerBranch = r.remoteHead(`ralph/${batchId}/alpha`);
    expect(workerBranch).not.toBeNull();
    expect(r.remoteHead('ralph/pr/alpha')).toBe(workerBranch);
    expect(alpha.headSha).toBe(workerBranch);
    // The body is ralph's, from the worker's report: objective, task status, verify result, findings escaped.
    expect(alpha.title).toBe('ralph: alpha: Make alpha.txt say alpha.');
    expect(alpha.body).toContain('> Make alpha.txt say alpha.');
    expect(alpha.body).toMatch(/\| only \| done \|/);
    expect(alpha.body).toMatch(/\| test -f alpha\.txt \| passed \| \d+ms \|/);
    expect(alpha.body).toContain('alpha touches alpha.txt &lt;img src=x&gt; @\u200bocto');
    expect(alpha.body).not.toMatch(/<img|\]\(https:\/\/evil/);
    expect(alpha.body).toContain(`- Run files: ${hostname()}:${join(r.dir, 'workers', 'w1', 'runs', batchId, 'alpha')} (on the machine that ran it)`);
    expect(first.result('alpha')).toContain(`- PR URL: https://github.com/acme/widgets/pull/${alpha.number}`);
    expect(first.result('alpha')).toContain(`- Delivery: pull request \\#${alpha.number} opened`);
    expect(first.result('alpha')).toContain('- Outcome: complete');
    expect(first.result('gamma')).toContain('- Delivery: no pull request: the plan ended failed \\(--pr draft opens drafts');
    expect(first.stderr).toMatch(/alpha: pull request #\d+ opened/);

    // Again, with drafts: alpha's pull request is updated, not doubled; gamma opens as a draft.
    const second = await batch('out2', ['--pr', 'draft']);
    expect(second.code, second.stderr).toBe(1);
    expect(gh!.pulls.map((p) => [p.head, p.draft]).sort()).toEqual([
      ['ralph/pr/alpha', false],
      ['ralph/pr/gamma', true],
    ]);
    expect(second.result('alpha')).toContain(`- Delivery: pull request \\#${alpha.number} updated`);
    const gamma = gh!.pulls.find((p) => p.head === 'ralph/pr/gamma')!;
    expect(gamma.body).toContain('### Why this is a draft');
    expect(gamma.body).toContain('| false | not run | - |');
    expect(second.result('gamma')).toMatch(/- Delivery: pull request \\#\d+ opened as a draft/);
    // The token stayed with the coordinator: every API call carried it, and Redis never held it.
    expect(gh!.requests.every((q) => q.token === TOKEN)).toBe(true);
    expect(await everythingInRedis(redis!.url)).not.toContain(TOKEN);
  });

  it('refuses before anything is queued when the forge check fails (64); a forge failing after the plan is recorded and leaves the outcome', async () => {
    const { r, w, env } = await setUp();
    const refused = ralph(['batch', 'plans', '--queue', redis!.url, '--pr', '--out', 'o'], r.repo, { ...env, GITHUB_TOKEN: 'stolen' });
    expect(await refused.exited).toBe(64);
    expect(refused.stderr).toMatch(/^ralph: --pr: reading GitHub acme\/widgets: GitHub refused the token \(401 Bad credentials\)/);
    expect(existsSync(join(r.repo, 'o'))).toBe(false);
    expect(await everythingInRedis(redis!.url)).toBe('');

    await startWorker(w, redis!.url, 'w1', { command: [process.execPath, w.agent] });
    gh!.failWrites = true;
    const failing = ralph(['batch', 'plans/alpha.md', '--queue', redis!.url, '--pr', '--out', 'o'], r.repo, env);
    expect(await failing.exited, failing.stderr).toBe(0);
    const text = readFileSync(join(r.repo, 'o', 'alpha.md'), 'utf8');
    expect(text).toContain('- Outcome: complete');
    expect(text).toMatch(/- Delivery: failed: pull request not opened: opening a pull request for ralph\/pr\/alpha: GitHub answered 500 Server Error; the branch is pushed as ralph\/pr\/alpha/);
    expect(readFileSync(join(r.repo, 'o', 'index.md'), 'utf8')).toMatch(/alpha: delivery failed: pull request not opened/);
    expect(r.remoteHead('ralph/pr/alpha')).not.toBeNull();
    expect(gh!.pulls).toHaveLength(0);
  });
});
