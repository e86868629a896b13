// The built CLI (bin/ralph.js, needs dist/) as a child process, run to its end: its exit code,
// what it printed, and its pid (for checking that nothing it started outlives it).
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = resolve(ROOT, 'bin', 'ralph.js');

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
  pid: number;
}

/** With `stdin`, that is what it reads; without, /dev/null. */
export function runRalph(args: string[], o: { cwd?: string; env?: NodeJS.ProcessEnv; stdin?: string | Buffer; onStart?: (child: ChildProcess) => void } = {}): Promise<Ran> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: o.cwd ?? ROOT, env: { ...process.env, ...o.env }, stdio: [o.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', fail);
    child.on('close', (code) => done({ code, stdout, stderr, pid: child.pid! }));
    if (o.stdin !== undefined) child.stdin!.end(o.stdin);
    o.onStart?.(child);
  });
}
