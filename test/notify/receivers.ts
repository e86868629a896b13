// Real HTTP receivers on 127.0.0.1 for notification tests: one that records what arrives, one
// that answers 500 before it answers 200, one that never answers at all.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

type Answer = (req: Received, n: number, res: ServerResponse) => void;

async function start(answer: Answer): Promise<Receiver> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      answer(r, received.length, res);
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Answers 200 to everything and keeps it. */
export const recorder = () => start((_r, _n, res) => res.writeHead(200).end('ok'));

/** Answers 500 to the first `failures` requests, then 200. */
export const flaky = (failures = 1) => start((_r, n, res) => res.writeHead(n <= failures ? 500 : 200).end());

/** Reads the request and never answers (the connection stays open until close()). */
export const silent = () => start(() => undefined);
