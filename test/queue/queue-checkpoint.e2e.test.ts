// `ralph batch --queue --checkpoint` end to end (docs/deliver.md#checkpoints, docs/queue.md): the
// setting travels with the job, the worker commits after every iteration that changed files in
// its checkout and pushes the plan's branch at the end; with deliver.squash the steps are folded
// into the plan's one commit. Real parts: Debian's redis-server, a bare remote on disk, a
// `ralph worker` of the built CLI. Needs dist/ (npm run build).
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { makeRepo } from '../deliver/helpers.js';
import { git, ralph, ROOT, startWorker, stopEverything } from './helpers.js';

const RUNS = redisAvailable('the queued --checkpoint test');
// The deliver tests' `steps` agent: iteration 1 writes step-1.txt, 2 changes nothing, 3 writes step-3.txt and completes.
const PLAN = '---\nmax_iterations: 5\nverify:\n  - test -f step-3.txt\n---\n# s\n\n<!-- agent: steps -->\n\n<tasks>\n<task><name>only</name><action>step</action><done>done</done></task>\n</tasks>\n';

let redis: RedisServer | null = null;
const dirs: string[] = [];

beforeEach(async () => {
  if (RUNS) redis = await RedisServer.start();
});

afterEach(async () => {
  await stopEverything(dirs.splice(0));
  await redis?.dispose();
  redis = null;
});

describe.skipIf(!RUNS)('ralph batch --queue --checkpoint', () => {
  it('the pushed branch holds one commit per iteration that changed files, named by iteration and decision; with deliver.squash, one', async () => {
    const r = makeRepo({ 'plans/s.md': PLAN, '.gitignore': 'out*/\n' }, { plainRemote: true });
    dirs.push(r.dir);
    const agent = join(r.dir, 'agent.mjs');
    copyFileSync(join(ROOT, 'test', 'fixtures', 'deliver', 'agent.mjs'), agent);
    await startWorker({ dir: r.dir, remote: r.bare, repo: r.repo, agent }, redis!.url, 'w1');
    const batch = async (out: string, flags: string[]) => {
      const c = ralph(['batch', 'plans', '--queue', redis!.url, ...flags, '--out', out], r.repo);
      expect(await c.exited, c.stderr).toBe(0);
      const batchId = (JSON.parse(readFileSync(join(r.repo, out, 'batch.json'), 'utf8')) as { batchId: string }).batchId;
      return { branch: `ralph/${batchId}/s`, start: git(r.repo, 'rev-parse', 'HEAD') };
    };
    const remoteGit = (...args: string[]) => git(r.bare, ...args);

    const stepwise = await batch('out1', ['--checkpoint']);
    expect(remoteGit('log', '--format=%s', `${stepwise.start}..${stepwise.branch}`).split('\n')).toEqual([
      'ralph checkpoint: s iteration 3 (decision: complete)',
      'ralph checkpoint: s iteration 1 (decision: none)',
    ]);
    expect(remoteGit('show', '--name-only', '--format=', `${stepwise.branch}~1`)).toBe('step-1.txt');

    // deliver.squash from the repository's config, as committed and pushed: one commit, the plan's usual one.
    writeFileSync(join(r.repo, 'ralph.config.yaml'), 'deliver:\n  checkpoint: true\n  squash: true\n');
    git(r.repo, 'add', 'ralph.config.yaml');
    git(r.repo, 'commit', '-qm', 'squash');
    git(r.repo, 'push', '-q', 'origin', 'main');
    const squashed = await batch('out2', []);
    expect(remoteGit('log', '--format=%s', `${squashed.start}..${squashed.branch}`)).toMatch(/^ralph: s complete \(run s, attempt 1\)$/);
    expect(remoteGit('diff', '--name-only', squashed.start, squashed.branch).split('\n').sort()).toEqual(['plans/s.summary.json', 'step-1.txt', 'step-3.txt']);
  });
});
