// Running the built CLI as a user would, and checking what is left running afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN } from './workspace.js';
export { isRunning as alive } from '../../helpers/processes.js';
import { isRunning as alive } from '../../helpers/processes.js';
import { PATIENCE_MS } from '../../helpers/patience.js';

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export interface Running {
  child: ChildProcess;
  /** Output so far. */
  stdout(): string;
  stderr(): string;
  done: Promise<Ran>;
}

export interface RalphOptions {
  cwd: string;
  env?: Record<string, string | undefined>;
}

const started = new Set<ChildProcess>();

/** The environment of a user without an API key, so nothing can reach a remote service. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (key.startsWith('ANTHROPIC_') || (key.startsWith('RALPH_') && key !== 'RALPH_SANDBOX') || key === 'NO_COLOR' || key === 'FORCE_COLOR') delete env[key];
  }
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

/** Starts `node bin/ralph.js …` with pipes (no TTY). */
export function startRalph(args: string[], o: RalphOptions): Running {
  const t0 = Date.now();
  const child = spawn(process.execPath, [BIN, ...args], { cwd: o.cwd, env: cleanEnv(o.env), stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const done = new Promise<Ran>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => {
      started.delete(child);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - t0 });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

export function ralph(args: string[], o: RalphOptions): Promise<Ran> {
  return startRalph(args, o).done;
}


export async function waitFor(check: () => boolean, what: string, ms = PATIENCE_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Kills what a failed test left behind: ralph processes this module started and the agent pids
 * given (only those, by id). Returns the pids that were still alive, for the test to report.
 */
export function killLeftovers(agentPids: number[] = []): number[] {
  const left: number[] = [];
  for (const child of started) {
    if (child.pid !== undefined && alive(child.pid)) {
      left.push(child.pid);
      child.kill('SIGKILL');
    }
  }
  for (const pid of agentPids) {
    if (alive(pid)) {
      left.push(pid);
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
  }
  return left;
}

/** Control characters a terminal acts on: ESC, BEL, C1 controls, and C0 other than tab and line feed. */
// eslint-disable-next-line no-control-regex
export const CONTROL_CHARS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\x80-\x9f]/;
