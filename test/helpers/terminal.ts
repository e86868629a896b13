// A real pseudo-terminal and a real terminal emulator for tests of what a person sees
// (docs/first-hour.md): util-linux `script` runs the command on a pty of the given size, and
// xterm.js (headless) replays everything written to it, so the test reads the screen as a
// terminal shows it, wraps and redraws included.
import { spawn } from 'node:child_process';
import xterm from '@xterm/headless';
import { findProgram, systemDepAvailable } from './system-deps.js';

const SCRIPT = findProgram('RALPH_SCRIPT', ['script']);
export const ptyAvailable = (): boolean =>
  systemDepAvailable('a pseudo-terminal (util-linux `script`)', SCRIPT ? undefined : 'no `script` on PATH', 'Install it: apt-get install bsdutils (Debian) or util-linux.');

const quote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;

export interface PtyRun {
  code: number | null;
  /** Everything written to the terminal, control sequences and all. */
  raw: string;
}

/** Runs `argv` on a pty of `cols` x `rows` (stdin, stdout and stderr all on it). */
export function runInPty(argv: string[], o: { cols: number; rows: number; cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<PtyRun> {
  const inner = `stty cols ${o.cols} rows ${o.rows}; exec ${argv.map(quote).join(' ')}`;
  return new Promise((done, fail) => {
    const child = spawn(SCRIPT!, ['-qfec', inner, '/dev/null'], { cwd: o.cwd, env: { TERM: 'xterm-256color', ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let raw = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (raw += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (raw += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`timed out on the pty; output so far:\n${raw}`));
    }, o.timeoutMs ?? 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, raw });
    });
  });
}

export interface Screen {
  /** Every row of the screen and its scrollback, as shown (trailing spaces dropped). */
  rows: string[];
  /** Rows joined where the terminal wrapped a line: the lines as they were written. */
  lines: string[];
}

/** What a terminal of `cols` x `rows` shows after `raw` was written to it. */
export async function screenOf(raw: string, cols: number, rows: number): Promise<Screen> {
  const term = new xterm.Terminal({ cols, rows, scrollback: 100_000, allowProposedApi: true });
  await new Promise<void>((r) => term.write(raw, r));
  const buffer = term.buffer.active;
  const shown: string[] = [];
  const lines: string[] = [];
  for (let i = 0; i < buffer.length; i++) {
    const line = buffer.getLine(i)!;
    // A row the next one continues keeps its trailing spaces: they are part of the line.
    const continued = buffer.getLine(i + 1)?.isWrapped === true;
    const text = line.translateToString(!continued);
    shown.push(text.trimEnd());
    if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
    else lines.push(text);
  }
  term.dispose();
  const trim = (a: string[]) => {
    while (a.length > 0 && a[a.length - 1] === '') a.pop();
    return a;
  };
  return { rows: trim(shown), lines: trim(lines) };
}
