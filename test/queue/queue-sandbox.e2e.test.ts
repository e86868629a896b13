// A queue worker's agent inside ralph's sandbox (docs/sandbox.md "Batches and workers",
// docs/queue.md): `--sandbox on` given to `ralph batch --queue` travels with the job, and the
// worker (whose own default here is off: vitest.config sets RALPH_SANDBOX=off) runs the plan's
// agent in real bubblewrap with its checkout as the working tree. Real parts: Debian's
// redis-server, a bare remote on disk, `ralph worker` of the built CLI. Needs dist/.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { sandboxDepsAvailable } from '../sandbox/helpers.js';
import { git, planText, ralph, read, startWorker, stopEverything, type Workspace, workspace } from './helpers.js';

const RUNS = redisAvailable('the sandboxed queue worker test') && sandboxDepsAvailable();
const SECRET_KEY = 'PRIVATE-KEY-5eb63bbbe01eeed0';

// Tries to write outside its checkout and to read a key under ~/.ssh, records what
// happened in its checkout and commits it there (the worker pushes the branch), then completes.
const AGENT = `import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
readFileSync(0);
const tried = (f) => { try { return 'done: ' + String(f()).trim(); } catch (e) { return 'refused: ' + e.code; } };
const write = tried(() => { writeFileSync(process.env.OUTSIDE, 'escaped\\n'); return 'written'; });
const read = tried(() => readFileSync(process.env.HOME + '/.ssh/id_ed25519', 'utf8'));
writeFileSync('proof.txt', 'write ' + write + '\\nread ' + read + '\\n');
// Agents commit their work: in a worker's checkout, git's objects and refs live in the worker's clone.
execFileSync('git', ['add', 'proof.txt']);
execFileSync('git', ['commit', '-qm', 'agent: proof']);
writeFileSync(process.env.RALPH_SUMMARY, JSON.stringify({ plan: 's', status: 'complete', tasks: [{ name: 'only', status: 'done' }] }));
console.log('###PLAN_COMPLETE###');
`;

let redis: RedisServer | null = null;
const workspaces: Workspace[] = [];

beforeEach(async () => {
  if (RUNS) redis = await RedisServer.start();
});

afterEach(async () => {
  await stopEverything(workspaces.splice(0).map((w) => w.dir));
  await redis?.dispose();
  redis = null;
});

describe.skipIf(!RUNS)('a queued batch with --sandbox on', () => {
  it("the worker runs the agent and verify commands sandboxed: writes outside the checkout and the read of ~/.ssh are refused and counted; the plan completes", async () => {
    const w = workspace({ s: 'sandboxed' });
    workspaces.push(w);
    const home = join(w.dir, 'home');
    mkdirSync(join(home, '.ssh'), { recursive: true });
    writeFileSync(join(home, '.ssh', 'id_ed25519'), `${SECRET_KEY}\n`);
    const agent = join(w.dir, 'escape-agent.mjs');
    writeFileSync(agent, AGENT);
    const outside = join(w.dir, 'outside.txt');
    // Its verify command tries the same, from the same sandbox.
    const byVerify = join(w.dir, 'outside-verify.txt');
    writeFileSync(join(w.repo, 'plans', 's.md'), planText('s', 'sandboxed').replace('---\n# s', `verify: ["echo x > ${byVerify}; true"]\n---\n# s`));
    git(w.repo, 'commit', '-qam', 'verify');
    git(w.repo, 'push', '-q');
    await startWorker(w, redis!.url, 'w1', { command: [process.execPath, agent], env: { HOME: home, OUTSIDE: outside } });
    const out = join(w.dir, 'out');
    const coordinator = ralph(['batch', 'plans', '--queue', redis!.url, '--sandbox', 'on', '--out', out], w.repo);
    expect(await coordinator.exited, coordinator.stderr).toBe(0);

    expect(read(out, 's.md')).toContain('- Outcome: complete');
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(byVerify)).toBe(false);
    const batchId = JSON.parse(read(out, 'batch.json')).batchId as string;
    const proof = git(w.remote, 'show', `ralph/${batchId}/s:proof.txt`);
    expect(proof).toMatch(/^write refused: E\w+$/m);
    // A hidden secret is refused, or read as ralph's notice in its place (docs/sandbox.md): never the key.
    expect(proof).toMatch(/^read (refused: E\w+|done: .*hidden by ralph's sandbox.*)$/m);
    expect(proof).not.toContain(SECRET_KEY);
    expect(git(w.remote, 'log', '--format=%s', `ralph/${batchId}/s`)).toContain('agent: proof');
    // The refusal is counted in the plan's result.json, collected from the worker's report.
    const result = JSON.parse(readFileSync(join(out, 'runs', 's', 'result.json'), 'utf8'));
    expect(result.sandbox.mode).toBe('on');
    expect(result.sandbox.denied).toBeGreaterThanOrEqual(1);
    const refused = result.sandbox.refusals.map((r: { what: string; target: string }) => `${r.what} ${r.target}`);
    expect(refused).toContain(`write ${outside}`);
    expect(refused).toContain(`write ${byVerify}`);
    expect(read(out, 's.md')).toMatch(/sandbox refused a write \(.*outside\.txt\) by the agent/);
    expect(read(out, 's.md')).toMatch(/sandbox refused a write \(.*outside-verify\.txt\) by the verify commands/);
  });
});
