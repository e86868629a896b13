// The pieces of a queued batch, for real: Debian's redis-server (test/helpers/redis-server.ts), a
// bare git repository on disk as the remote, a clone holding the plans, `ralph worker` processes
// with their own workdirs, and the built CLI as coordinator. Every process a test starts is
// tracked and killed afterwards, and the suite checks nothing it started is left running.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { FLUX_DRIVE_SENTINEL } from '../../src/contract.js';
import { isRunning } from '../helpers/processes.js';
import { PATIENCE_MS } from '../helpers/patience.js';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin', 'ralph.js');

/** The queue secret every test's coordinator and workers share (docs/queue.md "What a worker trusts"). */
export const SECRET = 'test-queue-secret-0123456789abcdef0123456789abcdef';

/** Identity for commits made by tests, workers and agents, whatever the machine's git config. */
export const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'ralph-queue-'));
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_ENV }, stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export interface Workspace {
  dir: string;
  remote: string;
  repo: string;
  /** The scripted agent, copied into the workspace so its processes can be found by path. */
  agent: string;
}

export function planText(id: string, behaviour: string): string {
  return `---\nmax_iterations: 3\n---\n# ${id}\n\n<!-- agent: ${behaviour} -->\n\nDo it.\n\n<tasks>\n<task><name>only</name><action>do it</action><done>done</done></task>\n</tasks>\n`;
}

/** A bare remote and a clone with `plans/<id>.md` for each plan, committed and pushed. */
export function workspace(plans: Record<string, string>): Workspace {
  const dir = tempDir();
  const remote = join(dir, 'remote.git');
  const repo = join(dir, 'repo');
  git(dir, 'init', '-q', '--bare', '-b', 'main', remote);
  git(dir, 'clone', '-q', remote, repo);
  git(repo, 'checkout', '-q', '-b', 'main');
  mkdirSync(join(repo, 'plans'));
  writeFileSync(join(repo, 'notes.txt'), 'start\n');
  writeFileSync(join(repo, '.gitignore'), '.ralph/\n');
  for (const [id, behaviour] of Object.entries(plans)) writeFileSync(join(repo, 'plans', `${id}.md`), planText(id, behaviour));
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'plans');
  git(repo, 'push', '-q', '-u', 'origin', 'main');
  const agent = join(dir, 'agent.mjs');
  copyFileSync(join(ROOT, 'test', 'fixtures', 'batch', 'agent.mjs'), agent);
  return { dir, remote, repo, agent };
}

export interface Proc {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

const started: ChildProcess[] = [];

export function ralph(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...GIT_ENV, RALPH_QUEUE_SECRET: SECRET, ...env } });
  started.push(child);
  const proc: Proc = {
    child,
    stdout: '',
    stderr: '',
    exited: new Promise((r) => child.on('close', (code) => r(code))),
  };
  child.stdout!.on('data', (d) => (proc.stdout += d));
  child.stderr!.on('data', (d) => (proc.stderr += d));
  return proc;
}

export interface WorkerProc extends Proc {
  workdir: string;
}

export interface WorkerFlags {
  concurrency?: number;
  env?: NodeJS.ProcessEnv;
  /** The worker's own agent command; default the scripted agent; false: none (the repository's config names it). */
  command?: string[] | false;
  /** Runs the worker under this wrapper (say, bwrap with a small tmpfs as its workdir). */
  wrap?: (args: string[], workdir: string) => string[];
}

/** A `ralph worker` with a short job lock, so a killed worker's job is taken up within seconds. */
export async function startWorker(ws: Workspace, url: string, name: string, flags: WorkerFlags = {}): Promise<WorkerProc> {
  const workdir = join(ws.dir, 'workers', name);
  const command = flags.command === false ? [] : ['--', ...(flags.command ?? [process.execPath, ws.agent])];
  const args = ['worker', '--queue', url, '--workdir', workdir, '--concurrency', String(flags.concurrency ?? 1), '--lock-duration', '3s', '--stalled-interval', '1s', ...command];
  const proc = flags.wrap ? spawnWrapped(flags.wrap([process.execPath, BIN, ...args], workdir), ws.dir, flags.env) : ralph(args, ws.dir, flags.env);
  await until(() => proc.stderr.includes(' at a time, workdir ') || proc.child.exitCode !== null, PATIENCE_MS);
  return Object.assign(proc, { workdir });
}

function spawnWrapped(argv: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Proc {
  const child = spawn(argv[0]!, argv.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...GIT_ENV, RALPH_QUEUE_SECRET: SECRET, ...env } });
  started.push(child);
  const proc: Proc = { child, stdout: '', stderr: '', exited: new Promise((r) => child.on('close', (code) => r(code))) };
  child.stdout!.on('data', (d) => (proc.stdout += d));
  child.stderr!.on('data', (d) => (proc.stderr += d));
  return proc;
}

export async function until(check: () => boolean, ms = PATIENCE_MS, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`${what} not met within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Run directories a worker made for a batch's plans (the loop creates them when a run starts). */
export function workerRuns(workdir: string): string[] {
  const runs = join(workdir, 'runs');
  if (!existsSync(runs)) return [];
  return readdirSync(runs).flatMap((batch) => readdirSync(join(runs, batch)).map((d) => join(runs, batch, d)));
}

export function results(out: string): string[] {
  return readdirSync(out).filter((f) => f.endsWith('.md') && f !== 'index.md' && f !== 'report.md').sort();
}

export function read(out: string, name: string): string {
  return readFileSync(join(out, name), 'utf8');
}

/** Every result ends with the sentinel; no partial file is left. */
export function fluxDriveProblems(out: string): string[] {
  const problems = readdirSync(out).filter((f) => f.endsWith('.partial')).map((f) => `${f} left behind`);
  for (const f of results(out)) if (read(out, f).trimEnd().split('\n').at(-1) !== FLUX_DRIVE_SENTINEL) problems.push(`${f} has no sentinel`);
  return problems;
}

/** Processes whose command line mentions `marker` (a test's temporary folder). */
export function processesMentioning(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker) && isRunning(Number(entry))) pids.push(Number(entry));
    } catch {
      // gone
    }
  }
  return pids;
}

/** Kills whatever a test started that is still running (after a failed assertion, say). */
export async function killStarted(): Promise<void> {
  for (const child of started.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('close', r));
    }
  }
}

/**
 * Kills whatever a test started (killStarted), then every process still mentioning one of `dirs`:
 * agents orphaned by a killed worker are the test's to stop, and none may outlive it.
 */
export async function stopEverything(dirs: string[]): Promise<void> {
  await killStarted();
  for (const dir of dirs) {
    for (const pid of processesMentioning(dir)) killQuietly(pid);
    await until(() => processesMentioning(dir).length === 0, PATIENCE_MS, `no process of ${dir} left`);
  }
}

export function killQuietly(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
