// `ralph serve` as a user starts it: the built CLI on a free port, its address read from stdout.
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from '../helpers/run-ralph.js';

export interface ServeProc {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stop: () => Promise<number | null>;
}

export async function startServeCli(cwd: string, args: string[] = []): Promise<ServeProc> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exited = new Promise<number | null>((r) => child.on('close', r));
  const url = await new Promise<string>((done, fail) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /ralph serve: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m) done(m[1]!);
    });
    void exited.then((code) => fail(new Error(`ralph serve exited ${code}: ${err}`)));
  });
  return {
    child,
    url,
    stderr: () => err,
    stop: async () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
