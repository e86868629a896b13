// Debian's redis-server for tests: started on a free loopback port in a temporary folder, with
// persistence on (appendonly, fsync always) so a restart keeps what was written. Found through
// RALPH_REDIS_SERVER or PATH; where it is missing the suites skip loudly, and under .ci/run
// (RALPH_REQUIRE_SYSTEM_DEPS=1) they fail instead.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findProgram, systemDepAvailable } from './system-deps.js';

export const REDIS_SERVER = findProgram('RALPH_REDIS_SERVER', ['redis-server']);
const HINT = 'Install it (Debian: apt-get install redis-server) or point RALPH_REDIS_SERVER at one; .ci/run installs it.';

/** Whether suites needing Redis run here (prints the skip banner, or throws under .ci/run). */
export function redisAvailable(what: string): boolean {
  const problem = REDIS_SERVER === undefined ? (process.env.RALPH_REDIS_SERVER ? `RALPH_REDIS_SERVER=${process.env.RALPH_REDIS_SERVER} is not an executable file` : 'no redis-server on PATH and RALPH_REDIS_SERVER not set') : undefined;
  return systemDepAvailable(what, problem, HINT);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export class RedisServer {
  private child: ChildProcess | null = null;
  readonly dir: string;
  log = '';

  private constructor(readonly port: number) {
    this.dir = mkdtempSync(join(tmpdir(), 'ralph-redis-'));
  }

  static async start(): Promise<RedisServer> {
    const server = new RedisServer(await freePort());
    await server.startProcess();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  private async startProcess(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--appendonly', 'yes', '--appendfsync', 'always', '--save', '', '--daemonize', 'no', '--protected-mode', 'yes'];
    const child = spawn(REDIS_SERVER!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d) => (this.log += d));
    child.stderr!.on('data', (d) => (this.log += d));
    this.child = child;
    const end = Date.now() + 10_000;
    while (!(await accepting(this.port))) {
      if (child.exitCode !== null) throw new Error(`redis-server exited (${child.exitCode}):\n${this.log}`);
      if (Date.now() > end) throw new Error(`redis-server did not listen on ${this.port} within 10s:\n${this.log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Stops the server as `redis-cli shutdown` would (SIGTERM: it flushes its append-only file). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.startProcess();
  }

  /** A restart that loses everything (a Redis without persistence, or one whose disk was wiped). */
  async restartEmpty(): Promise<void> {
    await this.stop();
    for (const name of readdirSync(this.dir)) rmSync(join(this.dir, name), { recursive: true, force: true });
    await this.startProcess();
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
