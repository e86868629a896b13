// What the sandbox tests share: whether this machine has bubblewrap, socat and ripgrep (a loud
// skip where not; a failure under .ci/run), and a local HTTP server that records who reached it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { findProgram, systemDepAvailable } from '../helpers/system-deps.js';

export function sandboxDepsAvailable(): boolean {
  const missing = [
    ['bwrap', 'bubblewrap'],
    ['socat', 'socat'],
    ['rg', 'ripgrep'],
  ].filter(([program]) => findProgram(`RALPH_TEST_${program!.toUpperCase()}`, [program!]) === undefined);
  return systemDepAvailable(
    "ralph's sandbox",
    missing.length === 0 ? undefined : `${missing.map(([p]) => p).join(', ')} not on PATH`,
    `Install them: apt-get install ${missing.map(([, pkg]) => pkg).join(' ')}`,
  );
}

export interface Recorder {
  port: number;
  /** Requests and bare connections it saw. */
  hits: string[];
  close(): Promise<void>;
}

export async function recordingServer(): Promise<Recorder> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.end('{"ok":true}');
  });
  server.on('connection', () => hits.push('connection'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
