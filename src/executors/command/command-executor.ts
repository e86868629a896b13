// The `command` executor: any program as the agent. The prompt goes to its stdin; its stdout and
// stderr come back as events, either raw text chunks or decoded from an agent CLI's JSON stream.
// The program leads its own process group, so stopping it stops everything it started.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { DEFAULTS } from '../../contract.js';
import { UsageError } from '../../errors.js';
import { heldCredentials } from '../../util/credentials.js';
import type { StreamFormat } from '../../loop/types.js';
import type { Executor, ExecutorEvent, ExecutorRunOptions } from '../types.js';
import { ClaudeStreamDecoder } from './claude-stream.js';
import { CodexStreamDecoder } from './codex-stream.js';
import { EventQueue } from './event-queue.js';
import { JsonEventStream, MAX_JSON_LINE_BYTES } from './json-stream.js';
import { stopProcesses } from '../process-tree.js';
import { argsForRun } from './resume-args.js';

export interface CommandExecutorOptions {
  /** Program and arguments, run without a shell. */
  command: string[];
  streamFormat?: StreamFormat;
  /** TERM → KILL delay when the program is stopped. */
  killGraceMs?: number;
}

/** Internal knobs; the defaults suit real agents, tests turn them down. */
export interface CommandExecutorTuning {
  /**
   * After the program exits, how long its output may stay open, held by a background process it
   * left behind, before that process group is stopped.
   */
  drainMs?: number;
  maxJsonLineBytes?: number;
  /** Events waiting for the consumer before the program's output is paused. */
  highWater?: number;
}

const DEFAULT_DRAIN_MS = 2_000;
const DEFAULT_HIGH_WATER = 32;
/** After the group is gone, a pipe still open belongs to a process that left the group (setsid). */
const FORCE_CLOSE_AFTER_MS = 100;

/** What one executor remembers across iterations of a run. */
interface SessionMemory {
  id: string | undefined;
}

export function createCommandExecutor(options: CommandExecutorOptions, tuning: CommandExecutorTuning = {}): Executor {
  const command = options.command;
  if (!Array.isArray(command) || command.length === 0 || typeof command[0] !== 'string' || command[0] === '') {
    throw new UsageError(
      'the command executor needs a program to run',
      "give it after -- (ralph exec plan.md -- claude -p …) or as the plan's command: list",
    );
  }
  const session: SessionMemory = { id: undefined };
  return {
    name: 'command',
    run: (runOptions) => runProgram(options, tuning, runOptions, session),
  };
}

function cannotStart(program: string, error: unknown, cwd: string): ExecutorEvent {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' && !existsSync(cwd)) {
    return {
      type: 'exit',
      code: null,
      fatal: true,
      error: `cannot start "${program}": the working directory "${cwd}" does not exist; check --cwd`,
    };
  }
  const reason =
    code === 'ENOENT'
      ? 'no such program (is it installed and on PATH?)'
      : code === 'EACCES'
        ? 'permission denied (is it an executable file?)'
        : error instanceof Error
          ? error.message
          : String(error);
  return {
    type: 'exit',
    code: null,
    fatal: true,
    error: `cannot start "${program}": ${reason}; check the command after -- or the plan's command:`,
  };
}

async function* runProgram(
  options: CommandExecutorOptions,
  tuning: CommandExecutorTuning,
  run: ExecutorRunOptions,
  session: SessionMemory,
): AsyncGenerator<ExecutorEvent> {
  const format = options.streamFormat ?? 'text';
  const killGraceMs = options.killGraceMs ?? DEFAULTS.killGraceMs;
  const drainMs = tuning.drainMs ?? DEFAULT_DRAIN_MS;
  const [program, ...baseArgs] = options.command as [string, ...string[]];
  // A fresh context must not fall back to an older session if this iteration reports none.
  if (run.fresh) session.id = undefined;
  const args = argsForRun(format, baseArgs, session.id);

  if (run.signal.aborted) {
    yield { type: 'exit', code: null, signal: null, error: 'stopped before it started' };
    return;
  }

  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(program, args, {
      cwd: run.cwd,
      // The user's agent CLI gets the credentials ralph holds (src/util/credentials.ts).
      env: { ...process.env, ...heldCredentials(), ...run.env },
      detached: true,
      stdio: 'pipe',
    });
  } catch (error) {
    // Synchronous failures: arguments Node refuses (a NUL byte, …).
    yield cannotStart(program, error, run.cwd);
    return;
  }
  const pid = child.pid;

  const queue = new EventQueue<ExecutorEvent>({
    highWater: tuning.highWater ?? DEFAULT_HIGH_WATER,
    pause: () => {
      child.stdout.pause();
      child.stderr.pause();
    },
    resume: () => {
      child.stdout.resume();
      child.stderr.resume();
    },
  });
  const emit = (event: ExecutorEvent): void => {
    if (event.type === 'session') session.id = event.id;
    queue.push(event);
  };
  // The loop records the group so that a crashed ralph's orphan can be stopped on --resume.
  if (pid !== undefined) emit({ type: 'process', pid });

  const json =
    format === 'text'
      ? undefined
      : new JsonEventStream(
          format === 'claude-json' ? new ClaudeStreamDecoder() : new CodexStreamDecoder(),
          tuning.maxJsonLineBytes ?? MAX_JSON_LINE_BYTES,
        );

  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let pipesClosed = false;
  let drainTimer: NodeJS.Timeout | undefined;
  let stopping: Promise<void> | undefined;
  const stopGroup = (): Promise<void> => {
    if (pid === undefined) return Promise.resolve();
    // The group, and descendants that left it (setsid: Codex starts every command that way).
    stopping ??= stopProcesses({ roots: [pid], groups: [pid] }, killGraceMs).then(() => undefined);
    return stopping;
  };
  const destroyPipes = (): void => {
    if (pipesClosed) return;
    child.stdout.destroy();
    child.stderr.destroy();
  };
  // Once the group is gone, what is left in the pipes is read to the end; only a pipe that stays
  // open with nothing coming (held by a process outside the group) is closed by force.
  const closeWhenQuiet = (): void => {
    if (pipesClosed) return;
    if (queue.isPaused) setTimeout(closeWhenQuiet, FORCE_CLOSE_AFTER_MS);
    else destroyPipes();
  };
  const stopAndClose = (): void => {
    void stopGroup().then(() => setTimeout(closeWhenQuiet, FORCE_CLOSE_AFTER_MS));
  };

  // Text: chunks as they come (Buffers; the parser splits lines itself). JSON: stdout decoded,
  // stderr only logged. Every chunk yields at least one event: proof of life for the watchdog.
  child.stdout.on('data', (chunk: Buffer) => {
    if (json === undefined) emit({ type: 'text', stream: 'stdout', chunk });
    else for (const event of json.push(chunk)) emit(event);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    emit(json === undefined ? { type: 'text', stream: 'stderr', chunk } : { type: 'log', stream: 'stderr', chunk });
  });

  child.on('error', (error) => {
    // Without a pid the program never started; otherwise (a failed kill) 'close' still ends the run.
    if (child.pid !== undefined || queue.isClosed) return;
    queue.push(cannotStart(program, error, run.cwd));
    queue.close();
  });

  child.on('exit', (code, signal) => {
    exitInfo = { code, signal };
    // A background process the program left behind may hold its output open forever.
    const checkDrained = (): void => {
      if (pipesClosed) return;
      if (queue.isPaused) {
        drainTimer = setTimeout(checkDrained, drainMs); // the consumer is behind: data is still coming
        return;
      }
      emit({
        type: 'warning',
        message: `"${program}" exited but processes it started kept its output open for ${drainMs} ms; stopping them`,
      });
      stopAndClose();
    };
    drainTimer = setTimeout(checkDrained, drainMs);
  });

  child.on('close', (code, signal) => {
    pipesClosed = true;
    clearTimeout(drainTimer);
    if (queue.isClosed) return; // never started: already reported
    void (async () => {
      if (json !== undefined) for (const event of json.end()) emit(event);
      // What the program left running in its group ends with it, so an iteration leaves nothing behind.
      await stopGroup();
      emit({ type: 'exit', code: exitInfo?.code ?? code, signal: exitInfo?.signal ?? signal });
      queue.close();
    })();
  });

  const onAbort = (): void => stopAndClose();
  run.signal.addEventListener('abort', onAbort, { once: true });

  child.stdin.on('error', () => {
    // EPIPE: a program that does not read its stdin is fine.
  });
  child.stdin.end(run.prompt.text);

  try {
    for (;;) {
      const event = await queue.take();
      if (event === undefined) return;
      yield event;
    }
  } finally {
    run.signal.removeEventListener('abort', onAbort);
    if (!queue.isClosed) {
      // The consumer stopped early: nothing may outlive this generator.
      clearTimeout(drainTimer);
      await stopGroup();
      child.stdin.destroy();
      destroyPipes();
      queue.close();
    }
  }
}
