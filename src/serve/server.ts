// `ralph serve`'s HTTP server (docs/serve.md): plain node:http, the page's three static files,
// server-sent event streams fed by RepoWatch, RunFollower and QueueFeed, a few read-only JSON
// answers, the html report, and one action: "stop after this iteration".
//
// Bound to 127.0.0.1 by default. Every request must name this server in its Host header (a DNS
// rebinding page names its own host); the stop action must also come from this server's page:
// POST, its Origin, JSON, and the per-server token the page carries. Nothing a run wrote is ever
// served as HTML or script: the page puts run data in with textContent, under a strict
// Content-Security-Policy that runs only the page's own script.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { RalphError } from '../errors.js';
import { buildReport, parseFilters, renderHtml } from '../findings/report/index.js';
import { CONTENT_SECURITY_POLICY as REPORT_CSP } from '../findings/report/html-assets.js';
import type { QueueUrl } from '../queue/redis-url.js';
import { runPaths } from '../runs/paths.js';
import { ralphDir } from '../runs/project-root.js';
import { requestStop } from '../runs/stop-request.js';
import { readRange } from '../util/file-range.js';
import { APP_SCRIPT, APP_STYLE, pageHtml } from './page/assets.js';
import { QueueFeed } from './queue-feed.js';
import { RepoWatch } from './repo-watch.js';
import { RunFollower } from './run-follower.js';
import { batchDirOf, runDirOfKey } from './run-key.js';

export interface ServeOptions {
  /** The working directory whose `.ralph/` is shown. */
  cwd: string;
  port?: number;
  host?: string;
  queue?: QueueUrl;
  /** Tests give a fixed one; otherwise random per server. */
  token?: string;
}

export interface RunningServer {
  url: string;
  port: number;
  token: string;
  /** Open event streams, for tests and the bench. */
  clients(): number;
  close(): Promise<void>;
}

const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/** A page that cannot keep up is dropped (its EventSource reconnects and starts afresh). */
const MAX_BUFFERED = 4 * 1024 * 1024;
const FILE_BYTES = 1024 * 1024;

class Client {
  constructor(
    readonly res: ServerResponse,
    readonly onClose: () => void,
  ) {}

  send(event: string, data: unknown): void {
    if (this.res.destroyed) return;
    if (this.res.writableLength > MAX_BUFFERED) {
      this.res.destroy();
      return;
    }
    this.res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }
}

export async function startServer(o: ServeOptions): Promise<RunningServer> {
  const cwd = resolve(o.cwd);
  // The project's one .ralph/, found from any of its folders (runs/project-root.ts).
  const root = ralphDir(cwd);
  const token = o.token ?? randomBytes(24).toString('hex');
  const host = o.host ?? '127.0.0.1';
  const watch = new RepoWatch({ root });
  const overview = new Set<Client>();
  const followers = new Set<Client>();
  const feed = o.queue ? new QueueFeed(o.queue, (s) => broadcast('queue', s)) : null;

  function broadcast(event: string, data: unknown): void {
    for (const c of overview) c.send(event, data);
  }
  watch.on('run', (s) => broadcast('run', s));
  watch.on('batch', (b) => broadcast('batch', b));

  const ping = setInterval(() => {
    for (const c of [...overview, ...followers]) if (!c.res.destroyed) c.res.write(': ping\n\n');
  }, 25_000);
  ping.unref();

  let port = 0;
  const allowedHosts = () => new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `${host}:${port}`]);
  const origin = () => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const server: Server = createServer((req, res) => {
    try {
      handle(req, res);
    } catch (error) {
      fail(res, error instanceof RalphError ? 400 : 500, error instanceof RalphError ? error.message : 'internal error');
    }
  });

  function handle(req: IncomingMessage, res: ServerResponse): void {
    if (!allowedHosts().has(req.headers.host ?? '')) return fail(res, 421, 'this server answers to its own address only');
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname;
    if (path === '/api/stop') return req.method === 'POST' ? void stop(req, res) : fail(res, 405, 'POST only');
    if (req.method !== 'GET' && req.method !== 'HEAD') return fail(res, 405, 'read-only: GET only (and POST /api/stop)');
    switch (path) {
      case '/':
      case '/run':
      case '/batch':
        return send(res, 200, 'text/html; charset=utf-8', pageHtml(token));
      case '/app.js':
        return send(res, 200, 'text/javascript; charset=utf-8', APP_SCRIPT);
      case '/app.css':
        return send(res, 200, 'text/css; charset=utf-8', APP_STYLE);
      case '/api/events':
        return overviewStream(req, res);
      case '/api/run':
        return runStream(req, res, url);
      case '/api/run/files':
        return runFiles(res, url);
      case '/api/batch':
        return batchFiles(res, url);
      case '/report':
        return void report(res, url);
      case '/favicon.ico':
        res.writeHead(204, HEADERS);
        return void res.end();
      default:
        return fail(res, 404, 'not found');
    }
  }

  function openStream(req: IncomingMessage, res: ServerResponse, set: Set<Client>, onClose: () => void = () => undefined): Client {
    res.writeHead(200, { ...HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive', 'X-Accel-Buffering': 'no' });
    res.write('retry: 2000\n\n');
    const client = new Client(res, onClose);
    set.add(client);
    const done = () => {
      if (!set.delete(client)) return;
      client.onClose();
    };
    req.on('close', done);
    res.on('close', done);
    res.on('error', done);
    return client;
  }

  function overviewStream(req: IncomingMessage, res: ServerResponse): void {
    const client = openStream(req, res, overview, () => {
      if (overview.size === 0) feed?.pause();
    });
    client.send('hello', { cwd, queue: o.queue?.display ?? null, now: new Date().toISOString() });
    client.send('runs', watch.listRuns());
    client.send('batches', watch.listBatches());
    if (feed) {
      if (!feed.active) feed.start();
      client.send('queue', feed.last);
    }
  }

  function runStream(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const key = url.searchParams.get('key') ?? '';
    const dir = runDirOfKey(root, key);
    if (!dir) return fail(res, 404, 'no such run');
    const it = Number(url.searchParams.get('iteration'));
    const follower = new RunFollower(runPaths(dir), Number.isInteger(it) && it > 0 ? { iteration: it } : {});
    const onRun = (s: { key: string }) => {
      if (s.key === key) client.send('summary', s);
    };
    const client = openStream(req, res, followers, () => {
      follower.close();
      watch.off('run', onRun);
    });
    watch.on('run', onRun);
    const current = watch.listRuns().find((s) => s.key === key);
    if (current) client.send('summary', current);
    follower.on('digest', (d) => client.send('digest', d));
    follower.on('transcript', (t) => client.send('transcript', t));
    follower.start();
  }

  function runFiles(res: ServerResponse, url: URL): void {
    const dir = runDirOfKey(root, url.searchParams.get('key') ?? '');
    if (!dir) return fail(res, 404, 'no such run');
    const p = runPaths(dir);
    json(res, { result: text(p.result), blocked: text(p.blocked), findings: text(p.findings) });
  }

  function batchFiles(res: ServerResponse, url: URL): void {
    const dir = batchDirOf(root, url.searchParams.get('id') ?? '');
    if (!dir) return fail(res, 404, 'no such batch');
    json(res, { index: text(join(dir, 'index.md')), report: text(join(dir, 'report.md')) });
  }

  async function report(res: ServerResponse, url: URL): Promise<void> {
    const q = url.searchParams;
    const list = (name: string) => q.getAll(name).filter((v) => v !== '');
    const one = (name: string) => (q.get(name) ? q.get(name)! : undefined);
    try {
      const filters = parseFilters({ minSeverity: one('min-severity'), type: list('type'), action: list('action'), plan: list('plan'), since: one('since') });
      const batch = q.get('batch');
      const runsDir = batch ? batchDirOf(root, batch) : root;
      if (!runsDir) return fail(res, 404, 'no such batch');
      const html = renderHtml(await buildReport({ runsDir, filters }));
      res.writeHead(200, { ...HEADERS, 'Content-Type': 'text/html; charset=utf-8', 'Content-Security-Policy': REPORT_CSP });
      res.end(html);
    } catch (error) {
      if (error instanceof RalphError) return fail(res, 400, error.message);
      throw error;
    }
  }

  async function stop(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // A cross-site page can POST here but cannot read this page's token, nor set the header
    // without a preflight this server never answers.
    if (req.headers.origin !== origin()) return fail(res, 403, 'the stop action is for this server’s own page');
    const given = Buffer.from(String(req.headers['x-ralph-token'] ?? ''));
    const mine = Buffer.from(token);
    if (given.length !== mine.length || !timingSafeEqual(given, mine)) return fail(res, 403, 'wrong or missing token');
    if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) return fail(res, 415, 'JSON only');
    let body = '';
    for await (const chunk of req) {
      body += chunk;
      if (body.length > 4096) return fail(res, 413, 'too large');
    }
    let key = '';
    try {
      key = String((JSON.parse(body) as { key?: unknown }).key ?? '');
    } catch {
      return fail(res, 400, 'not JSON');
    }
    const dir = runDirOfKey(root, key);
    if (!dir) return fail(res, 404, 'no such run');
    const answer = requestStop(runPaths(dir));
    json(res, answer.asked ? { ok: true, message: `asked run ${answer.runId} to stop after its current iteration` } : { ok: false, message: `run ${answer.runId} is not running (${answer.health}): nothing to stop` }, answer.asked ? 200 : 409);
  }

  try {
    await new Promise<void>((done, fail) => {
      server.once('error', fail);
      server.listen(o.port ?? 0, host, () => {
        server.off('error', fail);
        done();
      });
    });
  } catch (error) {
    clearInterval(ping);
    watch.close();
    throw error;
  }
  port = (server.address() as { port: number }).port;
  return {
    url: `${origin()}/`,
    port,
    token,
    clients: () => overview.size + followers.size,
    async close() {
      clearInterval(ping);
      watch.close();
      for (const c of [...overview, ...followers]) c.res.destroy();
      await feed?.close();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

const HEADERS = {
  'Content-Security-Policy': PAGE_CSP,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { ...HEADERS, 'Content-Type': type, 'Cache-Control': 'no-store' });
  res.end(body);
}

function json(res: ServerResponse, data: unknown, status = 200): void {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(data));
}

function fail(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  send(res, status, 'text/plain; charset=utf-8', `${message}\n`);
}

/** A run's or batch's file as text, at most FILE_BYTES of it (the page shows it with textContent). */
function text(path: string): string | null {
  const r = readRange(path, 0, FILE_BYTES);
  if (r.size === 0 && r.bytes.length === 0) return null;
  const body = r.bytes.toString('utf8');
  return r.size > FILE_BYTES ? `${body}\n[… ${r.size - FILE_BYTES} more bytes]` : body;
}
