// What the API stand-ins share: an HTTP server on a free port of 127.0.0.1 that hands each request's
// path and whole body to the stand-in, a record of what it served and the usage it reported (what
// the conformance checks read back), and a close that drops the connections the CLIs keep alive.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Served {
  scenario: string;
  turn: number;
  body: string;
}

export abstract class StandInServer {
  /** The scenario turns answered, in order. */
  readonly served: Served[] = [];
  /** Usage the stand-in reported for scenario turns, summed. */
  readonly reported = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  /** Every request's path, shown when a run fails. */
  readonly paths: string[] = [];
  /** The next `times` model requests are refused for a limit, with this status and body (the limit scenario). */
  limit: { times: number; status: number; body: () => unknown } | undefined;
  /** Model requests refused for the limit so far. */
  limitsServed = 0;
  private server: Server | undefined;
  private base = '';

  /** The base URL the CLI is pointed at. */
  get url(): string {
    return this.base;
  }

  /** Answers one request; `path` is its URL without the query, `raw` its body. */
  protected abstract handle(path: string, raw: string, res: ServerResponse): void;

  /** Listens on a free port; `url` is then the server's address followed by `prefix`. */
  protected async listen(prefix = ''): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '').split('?')[0] ?? '';
        this.paths.push(path);
        this.handle(path, Buffer.concat(chunks).toString('utf8'), res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}${prefix}`;
    return this;
  }

  /** Refuses this model request for the limit, if one is set and not used up; true when it did. */
  protected refuseForLimit(res: ServerResponse): boolean {
    const limit = this.limit;
    if (limit === undefined || limit.times <= 0) return false;
    limit.times--;
    this.limitsServed++;
    json(res, limit.body(), limit.status);
    return true;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export function json(res: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
