// Queued batches under faults (docs/queue.md "What a worker trusts", "One attempt owns a plan",
// "Processes", "A sick worker steps aside", Redis losing its data), with the real parts: Debian's
// redis-server, bare remotes on disk, `ralph worker` processes of the built CLI. One Redis serves
// the whole file, each test on a database of its own (the queue and the batch keys live in it);
// the test that restarts Redis empty runs last. Needs dist/ (npm run build).
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisServer, redisAvailable } from '../helpers/redis-server.js';
import { isRunning } from '../helpers/processes.js';
import { findProgram, systemDepAvailable } from '../helpers/system-deps.js';
import { probeRedis } from '../../src/queue/redis-connection.js';
import { parseQueueUrl, startWorker as startQueueWorker } from '../../src/queue/index.js';
import { PATIENCE_MS } from '../helpers/patience.js';
import { fluxDriveProblems, git, planText, processesMentioning, ralph, read, results, SECRET, startWorker, stopEverything, until, workerRuns, workspace, type Workspace } from './helpers.js';

const RUNS = redisAvailable('the queued-batch fault tests');
const BWRAP = findProgram('RALPH_BWRAP', ['bwrap']);
const SETPRIV_RUNS = RUNS && systemDepAvailable('the agent-dies-with-its-worker test', findProgram('RALPH_SETPRIV', ['setpriv']) === undefined ? 'no setpriv on PATH' : undefined, 'Install util-linux (Debian: it is essential; setpriv is in it).');
const SICK_RUNS = RUNS && systemDepAvailable('the sick-worker test (a workdir on a small tmpfs)', BWRAP === undefined ? 'no bwrap on PATH' : undefined, 'Install it (Debian: apt-get install bubblewrap); .ci/run installs it.');

let redis: RedisServer | null = null;
let db = 0;
const workspaces: Workspace[] = [];

function ws(plans: Record<string, string>): Workspace {
  const w = workspace(plans);
  workspaces.push(w);
  return w;
}

/** A database of the shared Redis for one test: its own queue and keys. */
function queueUrl(): string {
  db += 1;
  return `${redis!.url}/${db}`;
}

beforeAll(async () => {
  if (RUNS) redis = await RedisServer.start();
});

afterAll(async () => {
  await redis?.dispose();
});

afterEach(async () => {
  await stopEverything(workspaces.splice(0).map((w) => w.dir));
});

/** Waits for a value read from Redis to pass `ok` (an event seen by polling, not a fixed sleep). */
async function settled<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  const end = Date.now() + PATIENCE_MS;
  for (;;) {
    const value = await read();
    if (ok(value)) return value;
    if (Date.now() > end) throw new Error(`${what}: still ${String(value)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function batchIdOf(out: string): string {
  return JSON.parse(readFileSync(join(out, 'batch.json'), 'utf8')).batchId as string;
}

function connection(url: string): { host: string; port: number; db: number } {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port), db: Number(u.pathname.slice(1) || 0) };
}

/** Files on a branch of the remote whose names start `work-`: what agents wrote. */
function workFiles(w: Workspace, branch: string): string[] {
  return git(w.remote, 'ls-tree', '-r', '--name-only', branch)
    .split('\n')
    .filter((f) => f.startsWith('work-'));
}

describe.skipIf(!RUNS)('queued batches under faults', () => {
  it('Redis is not a remote shell: unsealed or forged jobs run nothing on any worker; a newer format is handed back; forged reports write nothing', async () => {
    // a waits for `go`, made once the forged reports are in: the batch is running when they are written.
    const w = ws({ a: 'complete-on go' });
    const url = queueUrl();
    const [w1, w2] = await Promise.all([startWorker(w, url, 'w1'), startWorker(w, url, 'w2')]);
    const queue = new Queue('ralph', { connection: connection(url) });
    const raw = new Redis(connection(url));
    try {
      const pwned = join(w.dir, 'PWNED');
      const remote = w.remote;
      const commit = git(w.repo, 'rev-parse', 'HEAD');
      const shell = { command: ['sh', '-c', `touch ${pwned}`] };
      // An older, unsealed job that names its own command and a plan outside the checkout.
      await queue.add('x', { v: 1, batchId: '20260101-000000-aaaaaa', plan: 'x', planPath: '../../../etc/x.md', remote, commit, exec: shell, planTimeoutMs: null, firstAttempt: 1, coordinator: 'evil' }, { jobId: 'forged/1' });
      // A job of the current format with a MAC made without the secret.
      const body = JSON.stringify({ batchId: '20260101-000000-bbbbbb', plan: 'a', planPath: 'plans/a.md', remote, commit, exec: shell, planTimeoutMs: null, firstAttempt: 1, coordinator: 'evil' });
      await queue.add('y', { v: 2, batchId: '20260101-000000-bbbbbb', plan: 'a', body, mac: 'ab'.repeat(32) }, { jobId: 'forged/2' });
      // A job of a format no ralph writes yet: not refused, handed back for a newer worker.
      await queue.add('z', { v: 99, batchId: '20260101-000000-cccccc', plan: 'z' }, { jobId: 'newer/1' });
      for (const id of ['forged/1', 'forged/2']) await settled(() => queue.getJobState(id), (state) => state === 'failed', `${id} refused`);
      expect(w1.stderr + w2.stderr).toMatch(/refused job forged\/1: its format \(1\) carries no seal; nothing of it runs/);
      expect((await queue.getJob('forged/2'))!.failedReason).toMatch(/^refused by worker \S+: it is not sealed with this worker's queue secret; nothing of it ran/);
      await until(() => (w1.stderr + w2.stderr).includes('job newer/1 has format 99, newer than this ralph reads; handed back'), PATIENCE_MS, 'the newer job handed back');
      expect(['delayed', 'waiting']).toContain(await queue.getJobState('newer/1'));
      await queue.remove('newer/1');
      expect(existsSync(pwned)).toBe(false);
      expect([w1, w2].flatMap((x) => workerRuns(x.workdir))).toEqual([]);

      // A real batch while forged reports are written into its hash: none is taken, none writes a file.
      const out = join(w.dir, 'batches', 'b1');
      mkdirSync(join(w.dir, 'batches'));
      const coordinator = ralph(['batch', 'plans', '--queue', url, '--out', out], w.repo);
      await until(() => existsSync(join(out, 'batch.json')), PATIENCE_MS, 'batch.json written');
      const reports = `ralph:batch:${batchIdOf(out)}:reports`;
      const forged = (attempt: unknown) => JSON.stringify({ batchId: batchIdOf(out), plan: 'a', attempt, final: true, outcome: 'complete', reason: 'forged', text: 'forged', findings: '', worker: { id: 'x', host: 'x', pid: 1 }, result: { run: 'x' }, runDir: '/', checkout: '/', branch: 'b' });
      await raw.hset(reports, 'a#/../../x', forged('/../../x'), 'a#1', JSON.stringify({ body: forged(1), mac: 'cd'.repeat(32) }));
      writeFileSync(join(w.dir, 'go'), '');
      expect(await coordinator.exited).toBe(0);
      expect(coordinator.stderr).toContain('warning: ignored the report "a#/../../x" in Redis: it is not sealed');
      expect(read(out, 'a.md')).toContain('- Outcome: complete');
      expect(read(out, 'a.md')).not.toContain('forged');
      expect(readdirSync(join(w.dir, 'batches'))).toEqual(['b1']);
      expect(readdirSync(join(out, 'runs'))).toEqual(['a']);
      expect(existsSync(join(w.dir, 'x'))).toBe(false);
      // A finished job keeps only a small return value; the report lives in the batch's hash.
      const job = await queue.getJob(`${batchIdOf(out)}/a`);
      expect(job!.returnvalue).toEqual({ plan: 'a', attempt: 1, outcome: 'complete' });
    } finally {
      await queue.close();
      raw.disconnect();
    }
  });

  it('a worker frozen past its lock and resumed publishes nothing: the branch holds the accepted attempt, and the index names it', async () => {
    // s1 waits for `go`, made once its first worker is frozen.
    const w = ws({ s1: 'complete-on go' });
    const url = queueUrl();
    const frozen = await startWorker(w, url, 'frozen');
    const out = join(w.dir, 'out');
    const coordinator = ralph(['batch', 'plans', '--queue', url, '--out', out], w.repo);
    await until(() => workerRuns(frozen.workdir).length === 1, PATIENCE_MS, 'the first attempt started');
    frozen.child.kill('SIGSTOP');
    writeFileSync(join(w.dir, 'go'), '');
    // Its agent runs on and ends; the worker cannot renew its lock, and another worker takes the job.
    const other = await startWorker(w, url, 'other');
    await until(() => workerRuns(other.workdir).length === 1, PATIENCE_MS, 'the job taken over');
    frozen.child.kill('SIGCONT');
    await until(() => frozen.stderr.includes('s1: attempt 1 lost its job'), PATIENCE_MS, 'the frozen worker gives up');
    expect(await coordinator.exited).toBe(0);
    const result = read(out, 's1.md');
    expect(result).toContain('- Outcome: complete');
    expect(result).toContain('- Attempts: 2');
    const branch = `ralph/${batchIdOf(out)}/s1`;
    const head = git(w.remote, 'rev-parse', branch);
    expect(result).toContain(`- Commit: ${head}`);
    expect(git(w.remote, 'log', '-1', '--format=%s', branch)).toMatch(/^ralph: s1 complete \(run \S+, attempt 2\)$/);
    expect(read(out, 'index.md')).toContain(head.slice(0, 12));
    // (attempts/s1.attempt-1.md exists only when the coordinator looked before the freeze.)
    expect(frozen.stderr).toContain('nothing of it was committed, pushed or reported');
  });

  it('every worker killed mid-plan and restarted on its workdir: the orphaned agents are stopped, each branch holds only its own plan\'s files', async () => {
    // The first attempts wait for `go`, made once the workers are restarted: their agents are
    // orphans then, whatever the machine's load, and would write into reused checkouts unless stopped.
    const w = ws({});
    const go = join(w.dir, 'go');
    const plans = Object.fromEntries(['l1', 'l2', 'l3', 'l4'].map((id) => [id, `write-on-go ${go}`]));
    for (const [id, behaviour] of Object.entries(plans)) writeFileSync(join(w.repo, 'plans', `${id}.md`), planText(id, behaviour));
    // The repository names the agent (not the workers' flags, whose agents die with their worker):
    // its orphans are what a restarted worker must find and stop.
    writeFileSync(join(w.repo, 'ralph.config.yaml'), ['agent: scripted', 'agents:', '  scripted:', `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(w.agent)}]`, ''].join('\n'));
    git(w.repo, 'add', 'ralph.config.yaml', 'plans');
    git(w.repo, 'commit', '-q', '-m', 'config');
    git(w.repo, 'push', '-q');
    const url = queueUrl();
    const own = { concurrency: 2, command: false } as const;
    const first = await Promise.all([startWorker(w, url, 'w1', own), startWorker(w, url, 'w2', own)]);
    const out = join(w.dir, 'out');
    const coordinator = ralph(['batch', 'plans', '--queue', url, '--out', out], w.repo);
    await until(() => first.flatMap((x) => workerRuns(x.workdir)).length === 4, PATIENCE_MS, 'four plans started');
    // Their agents too (a run's folder is made just before its agent starts): the kill orphans all four.
    await until(() => processesMentioning(w.agent).length === 4, PATIENCE_MS, 'four agents running');
    for (const x of first) x.child.kill('SIGKILL');
    await Promise.all(first.map((x) => x.exited));
    const again = await Promise.all([startWorker(w, url, 'w1', own), startWorker(w, url, 'w2', own)]);
    writeFileSync(go, '');
    expect(await coordinator.exited).toBe(0);
    expect(results(out)).toEqual(['l1.md', 'l2.md', 'l3.md', 'l4.md']);
    expect(fluxDriveProblems(out)).toEqual([]);
    const id = batchIdOf(out);
    for (const plan of Object.keys(plans)) expect(workFiles(w, `ralph/${id}/${plan}`)).toEqual([`work-${plan}.txt`]);
    expect(again.map((x) => x.stderr).join('')).toMatch(/stopped \d+ process\(es\) left running by an earlier worker/);
  });

  it.skipIf(!SETPRIV_RUNS)('a worker killed with SIGKILL takes its agent with it (setpriv --pdeathsig)', async () => {
    const w = ws({ h1: 'hang' });
    const url = queueUrl();
    const worker = await startWorker(w, url, 'w1');
    const coordinator = ralph(['batch', 'plans', '--queue', url, '--out', join(w.dir, 'out')], w.repo);
    await until(() => workerRuns(worker.workdir).some((d) => existsSync(join(d, 'agent.pid'))), PATIENCE_MS, 'the agent started');
    const agentPid = Number(readFileSync(join(workerRuns(worker.workdir)[0]!, 'agent.pid'), 'utf8'));
    worker.child.kill('SIGKILL');
    await until(() => !isRunning(agentPid), PATIENCE_MS, 'the agent ended with its worker');
    coordinator.child.kill('SIGKILL');
  });

  it.skipIf(!SICK_RUNS)('a worker whose disk fills hands back what it holds, says why and exits 1; a healthy worker runs the plans', async () => {
    // f2 waits for `go`, made once the sick worker has stopped: it is running when the disk fills.
    const w = ws({ f1: 'fill 6000', f2: 'complete-on go' });
    const url = queueUrl();
    // Its workdir is a 12 MiB tmpfs: f1 leaves less than the 8 MiB a worker needs free.
    const sick = await startWorker(w, url, 'sick', {
      concurrency: 2,
      wrap: (argv, workdir) => {
        mkdirSync(workdir, { recursive: true });
        return [BWRAP!, '--dev-bind', '/', '/', '--size', String(12 * 1024 * 1024), '--tmpfs', workdir, '--die-with-parent', '--', ...argv];
      },
    });
    const out = join(w.dir, 'out');
    const coordinator = ralph(['batch', 'plans', '--queue', url, '--out', out], w.repo);
    expect(await sick.exited).toBe(1);
    expect(sick.stderr).toMatch(/error: the workdir \S+ is not usable: only \d+ KiB free on its file system \(it needs 8 MiB\); handing back \d running plan\(s\) and stopping/);
    expect(sick.stderr).not.toMatch(/\n\s+at /);
    writeFileSync(join(w.dir, 'go'), '');
    await startWorker(w, url, 'healthy');
    expect(await coordinator.exited).toBe(0);
    expect(results(out)).toEqual(['f1.md', 'f2.md']);
    expect(read(out, 'f1.md')).toContain('- Outcome: complete');
    expect(read(out, 'attempts/f1.attempt-1.md')).toMatch(/handed back to the queue: worker \S+ could not use its workdir/);
  });

  it('a second coordinator queuing the same plans is told so', async () => {
    const w = ws({ t1: 'complete', t2: 'complete' });
    const url = queueUrl();
    const queue = new Queue('ralph', { connection: connection(url) });
    try {
      const first = ralph(['batch', 'plans', '--queue', url, '--out', join(w.dir, 'out1')], w.repo);
      await settled(() => queue.getWaitingCount(), (n) => n === 2, 'the first batch queued');
      const second = ralph(['batch', 'plans/t1.md', '--queue', url, '--out', join(w.dir, 'out2')], w.repo);
      await until(() => second.stderr.includes('warning: batch '), PATIENCE_MS, 'the second coordinator warns');
      expect(second.stderr).toMatch(new RegExp(`warning: batch ${batchIdOf(join(w.dir, 'out1'))} has 1 of these plans queued or running too \\(plans/t1\\.md\\): both batches run them`));
      for (const c of [first, second]) c.child.kill('SIGINT');
      expect(await first.exited).toBe(130);
      expect(await second.exited).toBe(130);
    } finally {
      await queue.close();
    }
  });

  it('refuses what cannot work: no secret, an agent command for the workers, a database Redis does not have, a --workdir that is a file (64, one line, no stack)', async () => {
    const w = ws({ u1: 'complete' });
    const url = queueUrl();
    const noSecret = ralph(['batch', 'plans', '--queue', url, '--out', join(w.dir, 'out')], w.repo, { RALPH_QUEUE_SECRET: '' });
    expect(await noSecret.exited).toBe(64);
    expect(noSecret.stderr).toMatch(/^ralph: a queued batch needs a shared secret: set RALPH_QUEUE_SECRET \(or RALPH_QUEUE_SECRET_FILE, a file holding it\) on the coordinator and on every worker\n.*openssl rand -hex 32/);
    const workerNoSecret = ralph(['worker', '--queue', url, '--workdir', join(w.dir, 'wd')], w.dir, { RALPH_QUEUE_SECRET: '' });
    expect(await workerNoSecret.exited).toBe(64);
    const command = ralph(['batch', 'plans', '--queue', url, '--', 'sh', '-c', 'id'], w.repo);
    expect(await command.exited).toBe(64);
    expect(command.stderr.split('\n')[0]).toBe('ralph: a queued batch sends no agent command to the workers: each worker runs the agent named by its own flags or by the repository (ralph.config.yaml, the plan\'s command:)');
    const noDb = `${redis!.url}/99`;
    await expect(probeRedis(parseQueueUrl(noDb))).rejects.toThrow(`Redis at ${noDb} has no database 99: ERR DB index is out of range`);
    const status = ralph(['status', '--queue', noDb], w.dir);
    expect(await status.exited).toBe(64);
    expect(status.stderr.split('\n')[0]).toBe(`ralph: Redis at ${noDb} has no database 99: ERR DB index is out of range`);
    expect(status.stderr).not.toMatch(/ReplyError|\n\s+at /);
    writeFileSync(join(w.dir, 'a-file'), '');
    await expect(startQueueWorker({ queue: parseQueueUrl(url), concurrency: 1, workdir: join(w.dir, 'a-file'), secret: SECRET }, { runPlan: () => Promise.reject(new Error('never')), log: () => undefined })).rejects.toThrow(
      `--workdir ${join(w.dir, 'a-file')} is not a folder`,
    );
    expect(existsSync(join(w.dir, 'out'))).toBe(false);
  });

  // Last: it empties the Redis every test of this file shares.
  it('Redis restarted empty mid-batch: the coordinator says so, queues the unfinished plans again, and ends with one result per plan', async () => {
    // The plans wait for `go`, made after the restart: none can have finished before Redis lost its data.
    const plans = Object.fromEntries(['e1', 'e2', 'e3', 'e4'].map((id) => [id, 'complete-on go']));
    const w = ws(plans);
    const url = queueUrl();
    await Promise.all([startWorker(w, url, 'w1', { concurrency: 2 }), startWorker(w, url, 'w2')]);
    const out = join(w.dir, 'out');
    const coordinator = ralph(['batch', 'plans', '--queue', url, '--out', out], w.repo);
    await until(() => existsSync(out) && readdirSync(out).some((f) => f.endsWith('.md.partial')), PATIENCE_MS, 'a plan started');
    await redis!.restartEmpty();
    writeFileSync(join(w.dir, 'go'), '');
    expect(await coordinator.exited).toBe(0);
    expect(coordinator.stderr).toMatch(/warning: error: Redis lost this batch's data \(restarted without persistence, or flushed\): .*queuing the \d unfinished plan\(s\) again with fresh attempt numbers/);
    expect(results(out)).toEqual(['e1.md', 'e2.md', 'e3.md', 'e4.md']);
    expect(fluxDriveProblems(out)).toEqual([]);
    for (const id of Object.keys(plans)) expect(read(out, `${id}.md`)).toContain('- Outcome: complete');
  });
});
