// Queued batches end to end (docs/queue.md): the built CLI as coordinator (`ralph batch --queue`)
// and as workers (`ralph worker`), each worker with its own workdir, a bare repository on disk
// as the remote, Debian's redis-server with persistence on, and the scripted agent of
// test/fixtures/batch/agent.mjs. Needs dist/ (npm run build).
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { runQueuedBatch } from '../../src/queue/index.js';
import { jobId } from '../../src/queue/job.js';
import { QUEUE } from '../../src/contract.js';
import { Queue } from 'bullmq';
import { isRunning } from '../helpers/processes.js';
import { fluxDriveProblems, git, planText, ralph, read, results, SECRET, startWorker, stopEverything, until, workerRuns, workspace, type Workspace } from './helpers.js';
import { PATIENCE_MS } from '../helpers/patience.js';

const RUNS = redisAvailable('the queued-batch tests');

let redis: RedisServer | null = null;
const workspaces: Workspace[] = [];

function ws(plans: Record<string, string>): Workspace {
  const w = workspace(plans);
  workspaces.push(w);
  return w;
}

beforeEach(async () => {
  if (RUNS) redis = await RedisServer.start();
});

afterEach(async () => {
  await stopEverything(workspaces.splice(0).map((w) => w.dir));
  const pid = redis?.pid;
  await redis?.dispose();
  redis = null;
  if (pid !== undefined) expect(isRunning(pid)).toBe(false);
});

function branches(w: Workspace): string[] {
  return git(w.remote, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/ralph/').split('\n').filter(Boolean).sort();
}

function batchIdOf(out: string): string {
  return JSON.parse(readFileSync(join(out, 'batch.json'), 'utf8')).batchId as string;
}

describe.skipIf(!RUNS)('ralph batch --queue with ralph worker processes', () => {
  it('runs mixed outcomes across two workers: retries, stubs, branches pushed, the same files as a local batch', async () => {
    // a waits for `go` until the coordinator has said it started (its line is asserted below).
    const w = ws({ a: 'complete-on go', b: 'fail-once', c: 'fail', d: 'block', e: 'crash', f: 'edit notes.txt' });
    const [w1, w2] = await Promise.all([startWorker(w, redis!.url, 'w1', { concurrency: 2 }), startWorker(w, redis!.url, 'w2', { concurrency: 2 })]);
    const out = join(w.dir, 'out');
    const coordinator = ralph(['batch', 'plans', '--queue', redis!.url, '--out', out], w.repo);
    await until(() => /a: attempt 1 started on /.test(coordinator.stderr), PATIENCE_MS, 'the coordinator saw a start');
    writeFileSync(join(w.dir, 'go'), '');
    expect(await coordinator.exited).toBe(1);
    expect(coordinator.stderr).not.toMatch(/internal error|warning/i);
    expect(results(out)).toEqual(['a.md', 'b.md', 'c.md', 'd.md', 'e.md', 'f.md']);
    expect(fluxDriveProblems(out)).toEqual([]);
    expect(read(out, 'a.md')).toMatch(/### Findings Index\n- P1 \| BG001 \| "bug" \| Found in a \/ attempt 1\nVerdict: needs-changes\n/);
    expect(read(out, 'a.md')).toContain('```json\n{\n  "plan": "a"');
    expect(read(out, 'b.md')).toContain('- Outcome: complete');
    expect(read(out, 'b.md')).toContain('- Attempts: 2');
    expect(read(out, 'b.md')).toContain('- Earlier attempts: attempts/b.attempt-1.md');
    expect(read(out, 'c.md')).toMatch(/Verdict: error\nError: failed: /);
    expect(read(out, 'd.md')).toContain('- Outcome: blocked');
    expect(read(out, 'e.md')).toMatch(/Verdict: error\nError: failed: /);
    expect(readdirSync(join(out, 'attempts')).sort()).toEqual(['b.attempt-1.md', 'c.attempt-1.md', 'c.attempt-2.md', 'e.attempt-1.md', 'e.attempt-2.md']);
    expect(read(out, 'attempts/b.attempt-1.md')).toContain('- Outcome: failed');
    const index = read(out, 'index.md');
    expect(index.split('\n')[0]).toBe('[3/6 plans complete]');
    expect(index).toMatch(/\| d \| blocked \| 1 \| \d+ \| [^|]+ \| needs-changes \|/);
    // The index names the host and path of each plan's checkout; both workers ran plans.
    expect(index).toContain(join(w1.workdir, 'checkouts'));
    expect(index).toContain(join(w2.workdir, 'checkouts'));
    expect(read(out, 'report.md')).toContain('Found in a');
    // Receipts, as a local batch writes them: in the result file, copied into the index.
    expect(read(out, 'a.md')).toMatch(/### Receipts\n/);
    expect(index).toMatch(/## Receipts\n[\s\S]*### a\n/);
    const batch = JSON.parse(read(out, 'batch.json'));
    expect(batch.status).toBe('done');
    expect(batch.queue.url).toBe(redis!.url);
    // Each plan's work is committed on ralph/<batch>/<id> and pushed to the remote.
    const id = batchIdOf(out);
    expect(branches(w)).toEqual(['a', 'b', 'c', 'd', 'e', 'f'].map((p) => `ralph/${id}/${p}`));
    expect(git(w.remote, 'show', `ralph/${id}/f:notes.txt`)).toBe('start\nf');
    // Committed as a local batch commits (docs/batch.md "Branch commits").
    expect(git(w.remote, 'log', '-1', '--format=%B', `ralph/${id}/a`)).toMatch(/^ralph: a complete \(run \S+, attempt 1\)\n\nPlan: plans\/a\.md\nOutcome: complete\nReason: .+\nRun: \S+$/);
    expect(git(w.remote, 'show', `ralph/${id}/a:plans/a.summary.json`)).toContain('"plan":"a"');
    expect(git(w.remote, 'show', 'main:notes.txt')).toBe('start');
    expect(coordinator.stderr).toMatch(/a: attempt 1 started on ralph\/\S+\/a by worker /);
    expect(coordinator.stderr).toContain('[3/6 plans complete]');
  });

  it('kill -9 of a worker mid-job: another worker completes that plan as its retry; 12 plans, one result each', async () => {
    // Every plan waits for `go`, made once the victim is dead: its plan is mid-job when it dies, whatever the machine's load.
    const plans = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${String(i + 1).padStart(2, '0')}`, 'complete-on go']));
    const w = ws(plans);
    const [victim] = await Promise.all([startWorker(w, redis!.url, 'victim'), startWorker(w, redis!.url, 'w2'), startWorker(w, redis!.url, 'w3')]);
    const out = join(w.dir, 'out');
    const coordinator = ralph(['batch', 'plans', '--queue', redis!.url, '--out', out], w.repo);
    await until(() => workerRuns(victim.workdir).length > 0, PATIENCE_MS, 'the victim started a plan');
    const [killedRun] = workerRuns(victim.workdir);
    const killedPlan = killedRun!.split('/').at(-1)!;
    victim.child.kill('SIGKILL');
    await victim.exited;
    writeFileSync(join(w.dir, 'go'), '');
    expect(await coordinator.exited).toBe(0);
    expect(results(out)).toEqual(Object.keys(plans).map((id) => `${id}.md`));
    expect(fluxDriveProblems(out)).toEqual([]);
    expect(read(out, 'index.md').split('\n')[0]).toBe('[12/12 plans complete]');
    const killed = read(out, `${killedPlan}.md`);
    expect(killed).toContain('- Outcome: complete');
    expect(killed).toContain('- Attempts: 2');
    expect(killed).not.toContain(victim.workdir);
    expect(read(out, `attempts/${killedPlan}.attempt-1.md`)).toContain(victim.workdir);
    expect(coordinator.stderr).toMatch(new RegExp(`${killedPlan}: crashed \\(attempt 1 on \\S+ stopped without a result`));
    const id = batchIdOf(out);
    expect(branches(w)).toContain(`ralph/${id}/${killedPlan}`);
    expect(git(w.remote, 'show', `ralph/${id}/${killedPlan}:plans/${killedPlan}.summary.json`)).toContain(`"plan":"${killedPlan}"`);
    // No plan ran to completion twice: 12 results in all across the surviving workers, none on the victim.
    const finished = [w.dir].flatMap(() => ['w2', 'w3'].flatMap((n) => workerRuns(join(w.dir, 'workers', n)))).filter((d) => existsSync(join(d, 'result.json')));
    expect(finished).toHaveLength(12);
    expect(workerRuns(victim.workdir).filter((d) => existsSync(join(d, 'result.json')))).toEqual([]);
  });

  it('a worker reuses its checkouts: as many as it runs at once, each plan starting clean from the commit', async () => {
    const w = ws({ g1: 'edit notes.txt', g2: 'edit notes.txt', g3: 'complete', g4: 'edit notes.txt' });
    const worker = await startWorker(w, redis!.url, 'w1', { concurrency: 2 });
    const out = join(w.dir, 'out');
    const coordinator = ralph(['batch', 'plans', '--queue', redis!.url, '--out', out], w.repo);
    expect(await coordinator.exited).toBe(0);
    const clones = readdirSync(join(worker.workdir, 'checkouts'));
    expect(clones).toHaveLength(1);
    expect(readdirSync(join(worker.workdir, 'checkouts', clones[0]!)).sort()).toEqual(['1', '2']);
    // Each branch holds its own plan's work only: nothing of the plan that used the checkout before.
    const id = batchIdOf(out);
    for (const p of ['g1', 'g2', 'g4']) expect(git(w.remote, 'show', `ralph/${id}/${p}:notes.txt`)).toBe(`start\n${p}`);
    for (const p of ['g1', 'g2', 'g3', 'g4']) {
      const files = git(w.remote, 'ls-tree', '-r', '--name-only', `ralph/${id}/${p}`).split('\n');
      expect(files.filter((f) => f.endsWith('.summary.json'))).toEqual([`plans/${p}.summary.json`]);
    }
  });

  it('a checkout a killed git left locked is made afresh for the next job', async () => {
    const w = ws({ m1: 'edit notes.txt', m2: 'edit notes.txt' });
    const first = await startWorker(w, redis!.url, 'w1');
    const run = async (plan: string, out: string) => {
      const coordinator = ralph(['batch', `plans/${plan}.md`, '--queue', redis!.url, '--out', join(w.dir, out)], w.repo);
      expect(await coordinator.exited).toBe(0);
      return batchIdOf(join(w.dir, out));
    };
    await run('m1', 'out1');
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    // As a git killed mid-checkout leaves it: the checkout's index locked.
    const [clone] = readdirSync(join(first.workdir, 'checkouts'));
    const checkout = join(first.workdir, 'checkouts', clone!, '1');
    const gitDir = git(checkout, 'rev-parse', '--absolute-git-dir');
    writeFileSync(join(gitDir, 'index.lock'), '');
    await startWorker(w, redis!.url, 'w1');
    const id = await run('m2', 'out2');
    expect(git(w.remote, 'show', `ralph/${id}/m2:notes.txt`)).toBe('start\nm2');
    expect(existsSync(join(gitDir, 'index.lock'))).toBe(false);
  });

  it('a second worker on the same workdir is refused (64); the first one keeps it', async () => {
    const w = ws({ h1: 'complete' });
    const first = await startWorker(w, redis!.url, 'w1');
    const second = ralph(['worker', '--queue', redis!.url, '--workdir', first.workdir], w.dir);
    expect(await second.exited).toBe(64);
    expect(second.stderr.split('\n')[0]).toBe(`ralph: ${first.workdir} is used by another ralph worker (pid ${first.child.pid})`);
    expect(first.child.exitCode).toBeNull();
    // Once the first worker has stopped, its workdir is free again.
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    const third = await startWorker(w, redis!.url, 'w1');
    expect(third.child.exitCode).toBeNull();
  });

  it("the repository's config file applies: its agent on the workers, its batch defaults on the coordinator", async () => {
    const w = ws({ k1: 'edit notes.txt', k2: 'complete' });
    const config = ['agent: scripted', 'agents:', '  scripted:', `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(w.agent)}]`, 'defaults:', '  out: batches/nightly', '  plan_timeout: 5m', ''].join('\n');
    writeFileSync(join(w.repo, 'ralph.config.yaml'), config);
    git(w.repo, 'add', 'ralph.config.yaml');
    git(w.repo, 'commit', '-q', '-m', 'config');
    git(w.repo, 'push', '-q');
    await startWorker(w, redis!.url, 'w1', { concurrency: 2, command: false });
    // No agent command on the workers: they take the config's, from their checkout.
    const coordinator = ralph(['batch', 'plans', '--queue', redis!.url], w.repo);
    expect(await coordinator.exited).toBe(0);
    const out = join(w.repo, 'batches', 'nightly');
    expect(results(out)).toEqual(['k1.md', 'k2.md']);
    expect(JSON.parse(read(out, 'batch.json')).options.planTimeoutMs).toBe(300_000);
    expect(git(w.remote, 'show', `ralph/${batchIdOf(out)}/k1:notes.txt`)).toBe('start\nk1');
    // A config file the worker cannot read ends the plan invalid, with the file's own error.
    writeFileSync(join(w.repo, 'ralph.config.yaml'), `${config}  model: \${RALPH_TEST_NEVER_SET}\n`);
    git(w.repo, 'commit', '-q', '-am', 'config needs a variable');
    git(w.repo, 'push', '-q');
    const second = ralph(['batch', 'plans/k2.md', '--queue', redis!.url, '--out', join(w.dir, 'out2')], w.repo, { RALPH_TEST_NEVER_SET: 'set on the coordinator only' });
    expect(await second.exited).toBe(1);
    const invalid = read(join(w.dir, 'out2'), 'k2.md');
    expect(invalid).toContain('- Outcome: invalid');
    expect(invalid).toMatch(/ralph\.config\.yaml:8: .*RALPH_TEST_NEVER_SET.* is not set in the environment/);
  });

  it('the coordinator takes a result when the worker announces it, not at its next poll', async () => {
    const w = ws({ a: 'complete 300' });
    await startWorker(w, redis!.url, 'w1');
    const out = join(w.dir, 'out');
    // Polling every 10 minutes: only the worker's announcement can end this batch within the test's time.
    const summary = await runQueuedBatch({ cwd: w.repo, queue: redis!.url, plans: ['plans'], out, env: { RALPH_QUEUE_SECRET: SECRET } }, { pollMs: 600_000 });
    expect(summary.exitCode).toBe(0);
    expect(results(out)).toEqual(['a.md']);
  });

  it('a Redis restart mid-batch loses no result', async () => {
    // The first two plans (one per worker) complete at once; the others wait for `go`, made after the restart.
    const plans = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`r${i + 1}`, i < 2 ? 'complete' : 'complete-on go']));
    const w = ws(plans);
    await Promise.all([startWorker(w, redis!.url, 'w1'), startWorker(w, redis!.url, 'w2')]);
    const out = join(w.dir, 'out');
    const coordinator = ralph(['batch', 'plans', '--queue', redis!.url, '--out', out], w.repo);
    await until(() => existsSync(out) && results(out).length >= 1, PATIENCE_MS, 'a first result');
    await redis!.restart();
    writeFileSync(join(w.dir, 'go'), '');
    expect(await coordinator.exited).toBe(0);
    expect(results(out)).toEqual(Object.keys(plans).map((id) => `${id}.md`));
    expect(fluxDriveProblems(out)).toEqual([]);
    expect(read(out, 'index.md').split('\n')[0]).toBe('[6/6 plans complete]');
  });

  it('the coordinator killed mid-batch: --resume re-attaches and collects what finished meanwhile', async () => {
    // k1 completes at once; the others wait for `go`, made once the coordinator is dead.
    const plans = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`k${i + 1}`, i === 0 ? 'complete' : 'complete-on go']));
    const w = ws(plans);
    const [w1, w2] = await Promise.all([startWorker(w, redis!.url, 'w1', { concurrency: 2 }), startWorker(w, redis!.url, 'w2', { concurrency: 2 })]);
    const out = join(w.dir, 'out');
    const first = ralph(['batch', 'plans', '--queue', redis!.url, '--out', out], w.repo);
    await until(() => existsSync(out) && results(out).length >= 1, PATIENCE_MS, 'a first result');
    first.child.kill('SIGKILL');
    expect(await first.exited).toBeNull();
    expect(existsSync(join(out, 'index.md'))).toBe(false);
    writeFileSync(join(w.dir, 'go'), '');
    // The workers carry on without it.
    const done = () => [w1, w2].flatMap((x) => workerRuns(x.workdir)).filter((d) => existsSync(join(d, 'result.json'))).length;
    await until(() => done() === 6, PATIENCE_MS, 'the workers finished every plan');
    const second = ralph(['batch', '--resume', out], w.repo);
    expect(await second.exited).toBe(0);
    expect(second.stderr).not.toMatch(/internal error|warning/i);
    expect(results(out)).toEqual(Object.keys(plans).map((id) => `${id}.md`));
    expect(fluxDriveProblems(out)).toEqual([]);
    expect(read(out, 'index.md').split('\n')[0]).toBe('[6/6 plans complete]');
    for (const id of Object.keys(plans)) expect(read(out, `${id}.md`)).toContain('- Attempts: 1');
    expect(JSON.parse(read(out, 'batch.json')).status).toBe('done');
  });

  it('a worker that cannot clone hands the job back and stops; another worker runs every plan as its first attempt', async () => {
    const w = ws({ x1: 'complete', x2: 'complete' });
    // This worker's git sees the remote under a path that does not exist.
    const broken = await startWorker(w, redis!.url, 'broken', {
      env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: `url.${join(w.dir, 'missing.git')}.insteadOf`, GIT_CONFIG_VALUE_0: w.remote },
    });
    const out = join(w.dir, 'out');
    const coordinator = ralph(['batch', 'plans', '--queue', redis!.url, '--out', out], w.repo);
    expect(await broken.exited).toBe(1);
    expect(broken.stderr).toMatch(/ralph worker: error: cannot clone .*remote\.git: .*; job \S+ handed back; this worker stops/);
    expect(broken.stderr).not.toMatch(/\n\s+at /);
    await startWorker(w, redis!.url, 'good');
    expect(await coordinator.exited).toBe(0);
    expect(read(out, 'index.md').split('\n')[0]).toBe('[2/2 plans complete]');
    for (const id of ['x1', 'x2']) expect(read(out, `${id}.md`)).toContain('- Attempts: 1');
    expect(coordinator.stderr).toMatch(/warning: worker \S+ \(pid \d+\) cannot clone/);
  });

  it('SIGTERM drains a worker (its plan finishes, no new one starts); a second SIGTERM hands the running plan back; restarted on its workdir, it runs it as a new attempt', async () => {
    // Each plan waits for its own file, made once the test has seen what it waits for.
    const w = ws({ d1: 'complete-on go-d1', d2: 'complete-on go-d2' });
    const w1 = await startWorker(w, redis!.url, 'w1');
    const out = join(w.dir, 'out');
    const coordinator = ralph(['batch', 'plans', '--queue', redis!.url, '--out', out], w.repo);
    await until(() => workerRuns(w1.workdir).length === 1, PATIENCE_MS, 'w1 started d1');
    // `ralph status --queue` shows which worker runs what, from the jobs' progress (the first
    // iteration may not have reported yet).
    const status = ralph(['status', '--queue', redis!.url], w.dir);
    expect(await status.exited).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^queue ${redis!.url}: 1 plan\\(s\\) running, 1 waiting\n  \\S+/d1  on \\S+ \\(pid ${w1.child.pid}\\), attempt 1(?:, iteration 1/3)?, heartbeat \\d+s ago, in \\S+:${w1.workdir}/checkouts/[0-9a-f]{16}/1\n  \\S+/d2  waiting\n$`));
    w1.child.kill('SIGTERM');
    await until(() => w1.stderr.includes('draining'), PATIENCE_MS, 'w1 draining');
    writeFileSync(join(w.dir, 'go-d1'), '');
    expect(await w1.exited).toBe(0);
    expect(w1.stderr).toContain('draining');
    // The coordinator writes the result when it next looks at the queue.
    await until(() => existsSync(join(out, 'd1.md')), PATIENCE_MS, 'd1.md written');
    expect(read(out, 'd1.md')).toContain('- Outcome: complete');
    expect(read(out, 'd1.md')).toContain(w1.workdir);
    expect(workerRuns(w1.workdir)).toHaveLength(1);

    const w2 = await startWorker(w, redis!.url, 'w2');
    await until(() => workerRuns(w2.workdir).length === 1, PATIENCE_MS, 'w2 started d2');
    w2.child.kill('SIGTERM');
    await until(() => w2.stderr.includes('draining'), PATIENCE_MS, 'w2 draining');
    w2.child.kill('SIGTERM');
    expect(await w2.exited).toBe(130);
    expect(w2.stderr).toContain('handed back to the queue');
    expect(existsSync(join(out, 'd2.md'))).toBe(false);
    // Nothing of the handed-back attempt is kept: its plan starts afresh elsewhere, so its branch
    // is not pushed (a later attempt's work could not be pushed on top of it).
    expect(branches(w)).toEqual([`ralph/${batchIdOf(out)}/d1`]);

    // Restarted on the same workdir (what a systemd unit does after `systemctl kill`): it takes the
    // plan up again in a run directory of its own, never the handed-back attempt's.
    writeFileSync(join(w.dir, 'go-d2'), '');
    const again = await startWorker(w, redis!.url, 'w2');
    expect(await coordinator.exited).toBe(0);
    const d2 = read(out, 'd2.md');
    // Handing back is not the plan's failure: the run after it is not its retry (its number is new).
    expect(d2).toContain('- Outcome: complete');
    expect(d2).toContain('- Attempts: 2');
    expect(d2).toContain(join(again.workdir, 'runs', batchIdOf(out), 'd2.2'));
    expect(again.stderr.match(/d2: attempt \d+ of batch \S+ started/g)).toEqual([`d2: attempt 2 of batch ${batchIdOf(out)} started`]);
    expect(read(out, 'attempts/d2.attempt-1.md')).toMatch(/- Outcome: interrupted\n/);
    expect(read(out, 'attempts/d2.attempt-1.md')).toContain('handed back to the queue');
    expect(fluxDriveProblems(out)).toEqual([]);
  });

  it('Ctrl+C on the coordinator cancels waiting jobs and stops the running one (130); --resume runs them', async () => {
    const w = ws({ h1: 'hang', q2: 'complete', q3: 'complete' });
    const w1 = await startWorker(w, redis!.url, 'w1');
    const out = join(w.dir, 'out');
    const first = ralph(['batch', join('plans', 'h1.md'), join('plans', 'q2.md'), join('plans', 'q3.md'), '--queue', redis!.url, '--out', out], w.repo);
    await until(() => workerRuns(w1.workdir).some((d) => existsSync(join(d, 'agent.pid'))), PATIENCE_MS, 'the hanging agent started');
    const agentPid = Number(readFileSync(join(workerRuns(w1.workdir)[0]!, 'agent.pid'), 'utf8'));
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(130);
    expect(read(out, 'h1.md')).toContain('- Outcome: interrupted');
    expect(results(out)).toEqual(['h1.md']);
    expect(read(out, 'index.md').split('\n')[0]).toBe('[0/3 plans complete]');
    expect(read(out, 'index.md')).toMatch(/\| q2 \| not run \|/);
    await until(() => !isRunning(agentPid), PATIENCE_MS, 'the agent stopped');
    // The cancelled jobs are gone and the stopped one is over: nothing is left for the worker to take,
    // and it took nothing else.
    const queue = new Queue(QUEUE.name, { connection: { host: '127.0.0.1', port: redis!.port } });
    try {
      const state = (plan: string) => queue.getJobState(jobId(batchIdOf(out), plan));
      const end = Date.now() + PATIENCE_MS;
      while (!['completed', 'failed'].includes(await state('h1'))) {
        if (Date.now() > end) throw new Error(`h1's job is still ${await state('h1')}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      expect([await state('q2'), await state('q3')]).toEqual(['unknown', 'unknown']);
    } finally {
      await queue.close();
    }
    expect(workerRuns(w1.workdir)).toHaveLength(1);

    // h1 hangs again on its re-run and keeps w1 busy: a second worker runs q2 and q3.
    await startWorker(w, redis!.url, 'w2');
    const second = ralph(['batch', '--resume', out], w.repo);
    await until(() => existsSync(join(out, 'q2.md')) && existsSync(join(out, 'q3.md')), PATIENCE_MS, 'q2 and q3 finished');
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(130);
    expect(read(out, 'index.md').split('\n')[0]).toBe('[2/3 plans complete]');
    expect(readdirSync(join(out, 'attempts'))).toContain('h1.interrupted.md');
  });
});

describe('ralph batch --queue refuses what cannot work, before anything is enqueued (64)', () => {
  it('a URL that is not a redis:// URL', async () => {
    const w = ws({ u1: 'complete' });
    const r = ralph(['batch', 'plans', '--queue', 'http://localhost:6379', '--out', join(w.dir, 'out')], w.repo);
    expect(await r.exited).toBe(64);
    expect(r.stderr.split('\n')[0]).toBe('ralph: --queue must be a redis:// or rediss:// URL, got http://');
    expect(existsSync(join(w.dir, 'out'))).toBe(false);
  });

  it('--config: workers read the config file of their checkout, so another file is refused', async () => {
    const w = ws({ u1: 'complete' });
    writeFileSync(join(w.dir, 'other.yaml'), 'defaults:\n  max_iterations: 2\n');
    const r = ralph(['batch', 'plans', '--queue', 'redis://127.0.0.1:1', '--config', join(w.dir, 'other.yaml')], w.repo);
    expect(await r.exited).toBe(64);
    expect(r.stderr.split('\n')[0]).toBe('ralph: --config does not apply to a queued batch: each worker reads the config file of its checkout');
    const dirty = ralph(['batch', 'plans', '--queue', 'redis://127.0.0.1:1', '--allow-dirty'], w.repo);
    expect(await dirty.exited).toBe(64);
    expect(dirty.stderr.split('\n')[0]).toBe('ralph: --allow-dirty does not apply to a queued batch: workers run the plans as committed and pushed');
  });

  it('a Redis that does not answer, within seconds', async () => {
    const w = ws({ u1: 'complete' });
    const { freePort } = await import('../helpers/redis-server.js');
    const port = await freePort();
    const r = ralph(['batch', 'plans', '--queue', `redis://:secret@127.0.0.1:${port}/2`, '--out', join(w.dir, 'out')], w.repo);
    expect(await r.exited).toBe(64);
    expect(r.stderr.split('\n')[0]).toMatch(new RegExp(`^ralph: cannot reach Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}/2: .*ECONNREFUSED`));
    expect(r.stderr).not.toContain('secret');
    expect(existsSync(join(w.dir, 'out'))).toBe(false);
  });

  it('plans that are not committed as they are (workers read them from the commit)', async () => {
    const w = ws({ u1: 'complete', u2: 'complete' });
    writeFileSync(join(w.repo, 'plans', 'u2.md'), planText('u2', 'fail'));
    writeFileSync(join(w.repo, 'plans', 'u3.md'), planText('u3', 'complete'));
    const r = ralph(['batch', 'plans', '--queue', 'redis://127.0.0.1:1', '--out', join(w.dir, 'out')], w.repo);
    expect(await r.exited).toBe(64);
    expect(r.stderr).toMatch(/^ralph: cannot queue the batch:\n  \S+\/plans\/u2\.md: has changes that are not committed; workers read the plan from commit [0-9a-f]{12}\n  \S+\/plans\/u3\.md: not committed; /);
    expect(r.stderr).not.toContain('u1.md');
    expect(existsSync(join(w.dir, 'out'))).toBe(false);
  });

  it('an agent script or config file that differs from the commit (workers run the committed ones)', async () => {
    const w = ws({ u1: 'complete' });
    mkdirSync(join(w.repo, 'tools'));
    copyFileSync(w.agent, join(w.repo, 'tools', 'agent.mjs'));
    writeFileSync(join(w.repo, 'ralph.config.yaml'), ['agent: scripted', 'agents:', '  scripted:', `    command: [${JSON.stringify(process.execPath)}, tools/agent.mjs]`, ''].join('\n'));
    git(w.repo, 'add', '.');
    git(w.repo, 'commit', '-q', '-m', 'agent');
    git(w.repo, 'push', '-q');
    writeFileSync(join(w.repo, 'tools', 'agent.mjs'), '// changed, not committed\n', { flag: 'a' });
    writeFileSync(join(w.repo, 'ralph.config.yaml'), '# changed\n', { flag: 'a' });
    const r = ralph(['batch', 'plans', '--queue', 'redis://127.0.0.1:1', '--out', join(w.dir, 'out')], w.repo);
    expect(await r.exited).toBe(64);
    expect(r.stderr).toMatch(/^ralph: workers run these files as committed in [0-9a-f]{12}, and they differ from it:\n {2}ralph\.config\.yaml: modified \(config file the workers read\)\n {2}tools\/agent\.mjs: modified \(command of agent scripted\)\n/);
    expect(existsSync(join(w.dir, 'out'))).toBe(false);
  });

  it('a repository without a remote, or with one nobody can reach, or HEAD not pushed', async () => {
    const w = ws({ u1: 'complete' });
    const url = 'redis://127.0.0.1:1';
    const run = async () => {
      const r = ralph(['batch', 'plans', '--queue', url, '--out', join(w.dir, 'out')], w.repo);
      const code = await r.exited;
      return { code, first: r.stderr.split('\n')[0] };
    };
    git(w.repo, 'remote', 'set-url', 'origin', join(w.dir, 'nowhere.git'));
    expect(await run()).toEqual({ code: 64, first: expect.stringMatching(/^ralph: the remote origin \(.*nowhere\.git\) cannot be reached: /) });
    git(w.repo, 'remote', 'set-url', 'origin', w.remote);
    git(w.repo, 'commit', '-q', '--allow-empty', '-m', 'local only');
    expect(await run()).toEqual({ code: 64, first: expect.stringMatching(/^ralph: HEAD \([0-9a-f]{12}\) is not on the remote origin/) });
    git(w.repo, 'remote', 'remove', 'origin');
    expect(await run()).toEqual({ code: 64, first: expect.stringMatching(/^ralph: .* has no remote the workers could clone/) });
    expect(existsSync(join(w.dir, 'out'))).toBe(false);
  });
});
