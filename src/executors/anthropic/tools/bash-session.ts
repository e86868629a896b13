// One persistent bash process per conversation: `cd`, variables and functions carry from one
// command to the next, as the bash tool promises the model. Each command is handed to `eval` with
// stdin from /dev/null (so an unbalanced quote is a syntax error, not a shell waiting for more
// input, and a command reading stdin sees EOF instead of eating ralph's protocol), followed by a
// per-command random marker on stdout and stderr that says the command finished and with what code.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import { findProcesses, listProcesses, stopProcesses } from '../../process-tree.js';
import { BoundedOutput, DEFAULT_OUTPUT_LIMIT } from './bounded-output.js';
import { pidNamespacePrefix } from './pid-namespace.js';
import { trackGroup, untrackGroup } from './process-group.js';

/** How long to wait for Node to report the exit of a shell whose process group is gone. */
const EXIT_DELIVERY_MS = 2_000;
export interface BashSessionOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Per-command timeout; past it the session's process group is stopped. */
  timeoutMs: number;
  outputLimit?: number;
  /** Between TERM and KILL when the session is stopped. */
  killGraceMs?: number;
  /** A shell already wrapped by ralph's sandbox (docs/sandbox.md): started as it is. */
  shell?: { program: string; args: string[]; env: Record<string, string> };
}

export interface BashResult {
  stdout: string;
  stderr: string;
  /** null when the command did not finish (timeout, the shell exited, aborted). */
  exitCode: number | null;
  timedOut: boolean;
  /** The shell itself exited during the command (e.g. `exit`); the next command gets a new one. */
  shellExited: boolean;
  aborted: boolean;
}

export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
const DEFAULT_KILL_GRACE_MS = 1_000;


/** Single-quote a string for bash: nothing inside is expanded. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * Watches one output stream for the end marker, committing everything before it to a bounded
 * buffer. Only a short unconfirmed tail is held back, so memory does not grow with the output.
 */
class MarkerScanner {
  readonly out: BoundedOutput;
  private pending = '';
  private readonly decoder = new StringDecoder('utf8');
  done = false;
  /** Text after the marker up to the line end (the exit code on stdout). */
  trailer = '';

  constructor(
    private readonly marker: string,
    limit: number,
  ) {
    this.out = new BoundedOutput(limit);
  }

  push(data: Buffer): void {
    if (this.done) return;
    this.pending += this.decoder.write(data);
    const at = this.pending.indexOf(this.marker);
    if (at >= 0) {
      const nl = this.pending.indexOf('\n', at + this.marker.length);
      if (nl < 0) return; // the line with the marker is not complete yet
      this.out.append(this.pending.slice(0, at));
      this.trailer = this.pending.slice(at + this.marker.length, nl);
      this.pending = '';
      this.done = true;
      return;
    }
    const keep = this.marker.length;
    if (this.pending.length > keep) {
      this.out.append(this.pending.slice(0, this.pending.length - keep));
      this.pending = this.pending.slice(this.pending.length - keep);
    }
  }

  /** Everything received, when the command will not finish (timeout, shell exited). */
  drain(): string {
    this.pending += this.decoder.end();
    this.out.append(this.pending);
    this.pending = '';
    return this.out.toString();
  }
}

export class BashSession {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  private busy = false;
  private stopping: Promise<void> = Promise.resolve();
  /** Variables to export in the running shell before its next command (they changed since it started). */
  private exports = '';

  constructor(private readonly options: BashSessionOptions) {}

  /**
   * New values for environment variables (e.g. RALPH_ITERATION for the next iteration): a shell
   * started later gets them at spawn, the running one exports them before its next command.
   */
  updateEnv(vars: Record<string, string>): void {
    const changed = Object.entries(vars).filter(([k, v]) => this.options.env[k] !== v);
    if (changed.length === 0) return;
    for (const [k, v] of changed) this.options.env[k] = v;
    if (this.child) {
      this.exports += changed
        .filter(([k]) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
        .map(([k, v]) => `export ${k}=${shellQuote(v)}; `)
        .join('');
    }
  }

  /** The shell's own processes: the one spawned and, in a PID namespace, the bash that unshare started. */
  shellPids(): number[] {
    const pid = this.child?.pid;
    if (pid === undefined) return [];
    // Sandboxed: the shell sits at the end of the sandbox's own chain of processes (bubblewrap,
    // its proxy bridges), which cannot be told from what the shell started; all of it is kept,
    // and all of it ends with the shell (bubblewrap's --die-with-parent).
    if (this.options.shell) return findProcesses({ roots: [pid] }).map((p) => p.pid);
    if (pidNamespacePrefix() === null) return [pid];
    return [pid, ...[...listProcesses().values()].filter((p) => p.ppid === pid).map((p) => p.pid)];
  }

  /** The process group id of the running shell, if any (for tests and diagnostics). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  private start(): ChildProcess {
    // In its own PID namespace where possible: ralph's /proc/<pid>/environ (which still holds the
    // key ralph was started with) is then out of the shell's sight.
    // Inside ralph's sandbox the shell has its own PID namespace already (bubblewrap's).
    const sandbox = this.options.shell ? null : pidNamespacePrefix();
    const [program, ...args] = this.options.shell ? [this.options.shell.program, ...this.options.shell.args] : [...(sandbox ?? []), 'bash', '--noprofile', '--norc'];
    const child = spawn(program!, args, {
      cwd: this.options.cwd,
      env: { ...this.options.env, ...this.options.shell?.env },
      detached: true, // its own process group, so the whole tree can be stopped at once
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // An idle session must not keep ralph alive; a running command holds a timer instead.
    child.unref();
    for (const s of [child.stdin, child.stdout, child.stderr]) (s as unknown as { unref?: () => void }).unref?.();
    child.stdin?.on('error', () => {}); // EPIPE when the shell died: reported through 'exit'
    const pid = child.pid;
    if (pid !== undefined) trackGroup(pid);
    this.exited = new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.once('error', () => resolve());
    });
    child.once('exit', () => {
      if (this.child === child) this.child = null;
    });
    this.child = child;
    return child;
  }

  run(command: string, signal?: AbortSignal): Promise<BashResult> {
    if (this.busy) return Promise.reject(new Error('the bash session is already running a command'));
    this.busy = true;
    const fresh = this.child === null;
    const child = this.child ?? this.start();
    const exports = fresh ? '' : this.exports;
    this.exports = '';
    const limit = this.options.outputLimit ?? DEFAULT_OUTPUT_LIMIT;
    const marker = `__RALPH_DONE_${randomBytes(8).toString('hex')}__`;
    const out = new MarkerScanner(`\n${marker} `, limit);
    const err = new MarkerScanner(`\n${marker}`, limit);

    return new Promise<BashResult>((resolve) => {
      let settled = false;
      const finish = (r: Omit<BashResult, 'stdout' | 'stderr'>, complete: boolean): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        child.stdout?.off('data', onOut);
        child.stderr?.off('data', onErr);
        child.off('exit', onExit);
        child.off('error', onError);
        this.busy = false;
        resolve({
          stdout: complete ? out.out.toString() : out.drain(),
          stderr: complete ? err.out.toString() : err.drain(),
          ...r,
        });
      };
      const check = (): void => {
        if (out.done && err.done) {
          const code = Number.parseInt(out.trailer.trim(), 10);
          finish(
            {
              exitCode: Number.isNaN(code) ? null : code,
              timedOut: false,
              shellExited: false,
              aborted: false,
            },
            true,
          );
        }
      };
      const onOut = (d: Buffer): void => {
        out.push(d);
        check();
      };
      const onErr = (d: Buffer): void => {
        err.push(d);
        check();
      };
      // Set when ralph stops the shell itself, so its exit is not mistaken for the command's doing.
      let stoppedFor: 'timeout' | 'abort' | null = null;
      const onExit = (): void => {
        if (stoppedFor === null) finish({ exitCode: null, timedOut: false, shellExited: true, aborted: false }, false);
      };
      const onError = (e: Error): void => {
        err.out.append(`bash could not be started: ${e.message}\n`);
        finish({ exitCode: null, timedOut: false, shellExited: true, aborted: false }, false);
      };
      // The group is stopped before the result is returned, so nothing of it outlives the call.
      const onAbort = (): void => {
        stoppedFor ??= 'abort';
        void this.stop().then(() =>
          finish({ exitCode: null, timedOut: false, shellExited: true, aborted: true }, false),
        );
      };
      const timer = setTimeout(() => {
        stoppedFor ??= 'timeout';
        void this.stop().then(() =>
          finish({ exitCode: null, timedOut: true, shellExited: true, aborted: false }, false),
        );
      }, this.options.timeoutMs);

      child.stdout?.on('data', onOut);
      child.stderr?.on('data', onErr);
      child.once('exit', onExit);
      child.once('error', onError);
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });

      const script =
        exports +
        `eval ${shellQuote(command)} < /dev/null; __ralph_rc=$?; ` +
        `printf '\\n%s %s\\n' '${marker}' "$__ralph_rc"; printf '\\n%s\\n' '${marker}' >&2\n`;
      child.stdin?.write(script);
    });
  }

  /** Stops the session's whole process group: TERM, then KILL after the grace period. */
  stop(): Promise<void> {
    const child = this.child;
    if (!child) return this.stopping;
    this.child = null;
    this.stopping = this.stopGroup(child, this.exited);
    return this.stopping;
  }

  private async stopGroup(child: ChildProcess, exited: Promise<void>): Promise<void> {
    const pgid = child.pid;
    if (pgid === undefined) return;
    // Children that ignore TERM (or outlive the shell) share its group: all of it goes.
    await stopProcesses({ roots: [pgid], groups: [pgid] }, this.options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
    // The group can be gone before Node has delivered the shell's exit; the shell is unref'd, so a
    // timer keeps the event loop alive until it arrives (else ralph would simply end here).
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise<void>((r) => (timer = setTimeout(r, EXIT_DELIVERY_MS)))]);
    clearTimeout(timer);
    untrackGroup(pgid);
  }

  async restart(): Promise<void> {
    await this.stop();
    this.start();
  }
}
