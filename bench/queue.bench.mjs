// Queued batches at scale (docs/queue.md): 32 plans whose agent (test/fixtures/batch/sleep-agent.sh)
// sleeps 1 s, run through the built CLI as `ralph batch --queue` against `ralph worker` processes
// on one Debian redis-server: 1 worker x concurrency 1 (the baseline, measured in the same run)
// and 4 workers x concurrency 4, on the same queue. Each worker clones the bare remote into its
// own workdir once, runs each plan in one of its reused checkouts, commits and pushes its branch.
// Goal: 4 x 4 at least 12x faster than 1 x 1.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import { dataDir, ralphBin, repoDir, timed } from './lib.mjs';

const PLANS = 32;
const SLEEP_S = 1;
const GOAL = 12;
const agent = join(repoDir, 'test', 'fixtures', 'batch', 'sleep-agent.sh');
const redisServer = process.env.RALPH_REDIS_SERVER ?? 'redis-server';
// The queue's shared secret (docs/queue.md "What a worker trusts"): coordinator and workers need the same.
const gitEnv = { ...process.env, RALPH_QUEUE_SECRET: 'bench-queue-secret-0123456789abcdef0123456789abcdef', GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@localhost', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@localhost' };
const git = (cwd, ...args) => execFileSync('git', args, { cwd, env: gitEnv, stdio: ['ignore', 'pipe', 'pipe'] }).toString().trim();

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function accepting(port) {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function until(check, ms, what) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const root = mkdtempSync(join(dataDir, 'queue-'));
const children = [];
function cleanup() {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}
process.on('exit', cleanup);

const port = await freePort();
const url = `redis://127.0.0.1:${port}`;
const redis = spawn(redisServer, ['--port', String(port), '--bind', '127.0.0.1', '--dir', root, '--appendonly', 'yes', '--save', ''], { stdio: 'ignore' });
children.push(redis);
redis.on('error', (e) => {
  console.error(`cannot start ${redisServer}: ${e.message} (Debian: apt-get install redis-server)`);
  process.exit(1);
});
await until(() => accepting(port), 10_000, 'redis-server listening');

const remote = join(root, 'remote.git');
const repo = join(root, 'repo');
git(root, 'init', '-q', '--bare', '-b', 'main', remote);
git(root, 'clone', '-q', remote, repo);
git(repo, 'checkout', '-q', '-b', 'main');
mkdirSync(join(repo, 'plans'));
for (let i = 1; i <= PLANS; i++) {
  const id = `p${String(i).padStart(2, '0')}`;
  writeFileSync(join(repo, 'plans', `${id}.md`), `# ${id}\n\n<tasks>\n<task><name>only</name><action>sleep</action><done>slept</done></task>\n</tasks>\n`);
}
git(repo, 'add', '.');
git(repo, 'commit', '-q', '-m', 'plans');
git(repo, 'push', '-q', '-u', 'origin', 'main');

/** CPU time (ms) of a process (`self`: its own; `children`: its exited and reaped children), from stat(5). */
function cpuMs(pid = 'self') {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime are fields 14 to 17 of stat(5), here 11 to 14 after the name; in clock ticks (100 a second on Linux).
  const ms = (i) => Number(fields[i]) * 10;
  return { own: ms(11) + ms(12), children: ms(13) + ms(14) };
}

async function run(workers, concurrency) {
  const name = `${workers}x${concurrency}`;
  const started = [];
  for (let w = 0; w < workers; w++) {
    const child = spawn(process.execPath, [ralphBin, 'worker', '--queue', url, '--workdir', join(root, name, `w${w}`), '--concurrency', String(concurrency), '--', 'sh', agent, String(SLEEP_S)], { env: gitEnv, stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr.on('data', (d) => (log += d));
    children.push(child);
    started.push({ child, log: () => log });
  }
  await until(() => started.every((s) => s.log().includes(' at a time, workdir ')), 30_000, `${name} workers ready`);
  // CPU spent while the batch runs: the workers' (their own, and their git and agents') from
  // when they are ready to when the batch ends, and the coordinator's with everything it ran.
  const sum = (list) => list.reduce((a, c) => ({ own: a.own + c.own, children: a.children + c.children }), { own: 0, children: 0 });
  const workersAtReady = sum(started.map((s) => cpuMs(s.child.pid)));
  const coordinatorBefore = cpuMs().children;
  const out = join(root, name, 'out');
  const r = await timed(ralphBin, ['batch', 'plans', '--queue', url, '--out', out], { cwd: repo, env: gitEnv });
  const workersAtEnd = sum(started.map((s) => cpuMs(s.child.pid)));
  const cpu = { coordinator: cpuMs().children - coordinatorBefore, workers: workersAtEnd.own - workersAtReady.own, theirChildren: workersAtEnd.children - workersAtReady.children };
  const first = readFileSync(join(out, 'index.md'), 'utf8').split('\n')[0];
  for (const s of started) s.child.kill('SIGTERM');
  await Promise.all(started.map((s) => new Promise((res) => (s.child.exitCode !== null ? res() : s.child.once('close', res)))));
  if (r.code !== 0 || first !== `[${PLANS}/${PLANS} plans complete]`) throw new Error(`${name}: exit ${r.code}, index "${first}"\n${r.stderr}`);
  return { ms: r.ms, cpu, cpuMs: cpu.coordinator + cpu.workers + cpu.theirChildren };
}

try {
  const base = await run(1, 1);
  const wide = await run(4, 4);
  const ratio = base.ms / wide.ms;
  console.log(`1 worker x 1: ${(base.ms / 1000).toFixed(2)} s; 4 workers x 4: ${(wide.ms / 1000).toFixed(2)} s (${PLANS} plans, ${SLEEP_S} s each, one redis-server, bare remote on disk)`);
  // 16 plans at once on a small machine compete for its cores: say how busy it was, and how much
  // CPU the 4 x 4 run needed (workers, coordinator, git, agents), which bounds it from below.
  console.log(`machine: ${cpus().length} cores, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} at the end`);
  const parts = (c) => `coordinator ${c.coordinator} ms, workers ${c.workers} ms, their git and agents ${c.theirChildren} ms`;
  console.log(`CPU during the batch: 1 x 1 ${(base.cpuMs / 1000).toFixed(2)} s (${parts(base.cpu)}); 4 x 4 ${(wide.cpuMs / 1000).toFixed(2)} s (${parts(wide.cpu)}), ${Math.round(wide.cpuMs / PLANS)} ms a plan`);
  // The 16 plans of a wave start together and sleep together, and the cores idle while they
  // sleep: while the waves stay in step, 4 x 4 takes about two sleeps plus its CPU over the cores.
  console.log(`4 x 4 in step on ${cpus().length} cores: about ${((2 * SLEEP_S * 1000 + wide.cpuMs / cpus().length) / 1000).toFixed(2)} s (two waves of sleep, plus the CPU spread over every core)`);
  console.log(`RESULT queue: ratio=${ratio.toFixed(1)}x (goal >= ${GOAL}x) baseline_1x1_ms=${Math.round(base.ms)} w4x4_ms=${Math.round(wide.ms)} w4x4_cpu_ms=${wide.cpuMs}`);
  process.exitCode = ratio >= GOAL ? 0 : 1;
} finally {
  cleanup();
  rmSync(root, { recursive: true, force: true });
}
