// What the sandbox tests share: whether this machine has bubblewrap, socat and ripgrep (a loud
// skip where not; a failure under .ci/run), and a local HTTP server that records who reached it.
import { existsSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

/** A new folder to use as PATH: every program of the system's bin folders but bwrap (the caller removes it). */
export function pathWithoutBwrap(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-no-bwrap-'));
  for (const bin of ['/usr/local/bin', '/usr/bin', '/bin']) {
    if (!existsSync(bin)) continue;
    for (const name of readdirSync(bin)) {
      if (name === 'bwrap' || existsSync(join(dir, name))) continue;
      symlinkSync(join(bin, name), join(dir, name));
    }
  }
  return dir;
}
