// The `command` executor: any program as the agent. The prompt goes to its stdin; its stdout and
// stderr come back as events, either raw text chunks or decoded from an agent CLI's JSON stream.
// The program leads its own process group, so stopping it stops everything it started.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { DEFAULTS } from '../../contract.js';
import { UsageError } from '../../errors.js';
import { heldCredentials } from '../../util/credentials.js';
import type { StreamFormat } from '../../loop/types.js';
import { agentEnvironment, type Executor, type ExecutorEvent, type ExecutorRunOptions } from '../types.js';
import { EchoFilter } from './echo-filter.js';
import { EventQueue } from './event-queue.js';
import { decoderFor, newFormatMemory, stopPlan, type FormatMemory } from './formats.js';
import { JsonEventStream, MAX_JSON_LINE_BYTES } from './json-stream.js';
import { signalGroup } from '../process-group.js';
import { stopProcesses } from '../process-tree.js';
import { argsForRun, budgetArgs, canResume, isResumeRefusal } from './resume-args.js';
import { PlainLimits } from './plain-limits.js';
import { StderrTail } from './stderr-tail.js';
import type { CommandSandbox, SandboxedSpawn } from '../../sandbox/types.js';

export interface CommandExecutorOptions {
  /** Program and arguments, run without a shell. */
  command: string[];
  streamFormat?: StreamFormat;
  /** TERM → KILL delay when the program is stopped. */
  killGraceMs?: number;
  /** Runs the program inside ralph's sandbox (docs/sandbox.md). */
  sandbox?: CommandSandbox;
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
  /** How long an agent asked to stop gracefully (SIGINT) may take before TERM; default per format. */
  gracefulStopMs?: number;
}

const DEFAULT_DRAIN_MS = 2_000;
const DEFAULT_HIGH_WATER = 32;
/** After the group is gone, a pipe still open belongs to a process that left the group (setsid). */
const FORCE_CLOSE_AFTER_MS = 100;

/** What one executor remembers across iterations of a run. */
interface SessionMemory {
  id: string | undefined;
  formats: FormatMemory;
}

export function createCommandExecutor(options: CommandExecutorOptions, tuning: CommandExecutorTuning = {}): Executor {
  const command = options.command;
  if (!Array.isArray(command) || command.length === 0 || typeof command[0] !== 'string' || command[0] === '') {
    throw new UsageError(
      'the command executor needs a program to run',
      "give it after -- (ralph exec plan.md -- claude -p …) or as the plan's command: list",
    );
  }
  const session: SessionMemory = { id: undefined, formats: newFormatMemory() };
  const format = options.streamFormat ?? 'text';
  return {
    name: 'command',
    run: (runOptions) => runProgram(options, tuning, runOptions, session),
    // Text: an arbitrary program that may keep its own state (RALPH_FRESH_CONTEXT tells it); a
    // JSON format continues only a session the agent reported.
    canContinue: () => (format === 'text' ? undefined : canResume(format) && session.id !== undefined),
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
    error: `cannot start "${program}": ${reason}; check the command after -- or the plan's command`,
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
  const resumeArgs = argsForRun(format, baseArgs, session.id);
  const resuming = resumeArgs.length !== baseArgs.length;
  const args = [...resumeArgs, ...budgetArgs(format, baseArgs, run.budgetUsd)];

  if (run.signal.aborted) {
    yield { type: 'exit', code: null, signal: null, error: 'stopped before it started' };
    return;
  }

  // Sandboxed: the same program, started by the sandbox's own wrapper.
  let wrapped: SandboxedSpawn | undefined;
  if (options.sandbox !== undefined) {
    try {
      wrapped = await options.sandbox.wrapArgv([program, ...args]);
    } catch (error) {
      yield { type: 'exit', code: null, fatal: true, error: `cannot start "${program}" in the sandbox: ${(error as Error).message}; see docs/sandbox.md, or run with --sandbox off` };
      return;
    }
  }

  let child: ChildProcessWithoutNullStreams;
  try {
    child = spawn(wrapped?.program ?? program, wrapped?.args ?? args, {
      cwd: run.cwd,
      // The user's agent CLI gets the credentials ralph holds (src/util/credentials.ts), but not
      // what the config file marks as secret (hideEnv).
      env: { ...agentEnvironment(run, heldCredentials()), ...wrapped?.env },
      detached: true,
      stdio: 'pipe',
    });
  } catch (error) {
    // Synchronous failures: arguments Node refuses (a NUL byte, …).
    wrapped?.done();
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
  /** The agent's error events, to tell a refused resume from other failures. */
  let errors = '';
  const emit = (event: ExecutorEvent): void => {
    if (event.type === 'session') session.id = event.id;
    if (event.type === 'error' && errors.length < 4096) errors += `${event.message}\n`;
    queue.push(event);
  };
  // The loop records the group so that a crashed ralph's orphan can be stopped on --resume.
  if (pid !== undefined) emit({ type: 'process', pid });

  const decoder = decoderFor(format, session.formats, run.now);
  const json = decoder === undefined ? undefined : new JsonEventStream(decoder, tuning.maxJsonLineBytes ?? MAX_JSON_LINE_BYTES);
  // Text: ralph's own prompt echoed back is logged, never read as the agent's words.
  const echo = json === undefined ? { stdout: new EchoFilter(run.prompt.text), stderr: new EchoFilter(run.prompt.text) } : undefined;
  const stderrTail = new StderrTail();
  // Text: the CLIs' own limit notices become limit events (the decoders do it for JSON formats).
  const limits = echo === undefined ? undefined : { stdout: new PlainLimits(run.now), stderr: new PlainLimits(run.now) };
  const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };
  const emitText = (stream: 'stdout' | 'stderr', pieces: { kind: 'text' | 'log'; chunk: Buffer }[], last = false): void => {
    // A chunk held whole (it may still be the prompt's echo) is proof of life all the same.
    if (pieces.length === 0 && !last) emit({ type: 'activity' });
    for (const p of pieces) {
      if (p.kind === 'text') {
        emit({ type: 'text', stream, chunk: p.chunk });
        for (const e of limits![stream].push(decoders[stream].write(p.chunk))) emit(e);
      } else emit({ type: 'log', stream, chunk: p.chunk });
    }
    if (last) for (const e of limits![stream].push(decoders[stream].end()).concat(limits![stream].end())) emit(e);
  };

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
  // Asked to stop: agents that stop cleanly on SIGINT (and report their cost then) get it first,
  // and a while to exit by themselves, before TERM and KILL (docs/agents.md, "Stopping an agent").
  const plan = stopPlan(format);
  const gracefulMs = tuning.gracefulStopMs ?? plan.waitMs;
  let exited: () => void = () => {};
  const exitedPromise = new Promise<void>((resolve) => (exited = resolve));
  const stopGracefully = (): Promise<void> => {
    if (pid === undefined || plan.first !== 'SIGINT' || gracefulMs <= 0 || exitInfo !== undefined) return stopGroup();
    stopping ??= (async () => {
      signalGroup(pid, 'SIGINT');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exitedPromise, new Promise<void>((resolve) => (timer = setTimeout(resolve, gracefulMs)))]);
      clearTimeout(timer);
      // Then as any stop: the group, and descendants that left it by setsid.
      await stopProcesses({ roots: [pid], groups: [pid] }, killGraceMs);
    })();
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
  const stopAndClose = (graceful = false): void => {
    void (graceful ? stopGracefully() : stopGroup()).then(() => setTimeout(closeWhenQuiet, FORCE_CLOSE_AFTER_MS));
  };

  // Text: chunks as they come (Buffers; the parser splits lines itself). JSON: stdout decoded,
  // stderr only logged. Every chunk yields at least one event: proof of life for the watchdog.
  const sandbox = options.sandbox;
  child.stdout.on('data', (chunk: Buffer) => {
    sandbox?.noticeOutput(chunk);
    if (echo !== undefined) emitText('stdout', echo.stdout.push(chunk));
    else for (const event of json!.push(chunk)) emit(event);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    sandbox?.noticeOutput(chunk);
    stderrTail.push(chunk);
    if (echo !== undefined) emitText('stderr', echo.stderr.push(chunk));
    else emit({ type: 'log', stream: 'stderr', chunk });
  });

  child.on('error', (error) => {
    // Without a pid the program never started; otherwise (a failed kill) 'close' still ends the run.
    if (child.pid !== undefined || queue.isClosed) return;
    wrapped?.done();
    queue.push(cannotStart(program, error, run.cwd));
    queue.close();
  });

  child.on('exit', (code, signal) => {
    exitInfo = { code, signal };
    exited();
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
    wrapped?.done();
    clearTimeout(drainTimer);
    if (queue.isClosed) return; // never started: already reported
    void (async () => {
      if (json !== undefined) for (const event of json.end()) emit(event);
      if (echo !== undefined) {
        emitText('stdout', echo.stdout.end(), true);
        emitText('stderr', echo.stderr.end(), true);
      }
      // What the program left running in its group ends with it, so an iteration leaves nothing behind.
      await stopGroup();
      const tail = stderrTail.lines();
      const exitCode = exitInfo?.code ?? code;
      // A session that was never saved cannot be resumed: the loop starts a fresh context at once.
      const refused = resuming && exitCode !== 0 && isResumeRefusal(`${tail ?? ''}\n${errors}`);
      if (refused) session.id = undefined;
      emit({ type: 'exit', code: exitCode, signal: exitInfo?.signal ?? signal, ...(tail !== undefined ? { stderrTail: tail } : {}), ...(refused ? { resumeRefused: true } : {}) });
      queue.close();
    })();
  });

  const onAbort = (): void => stopAndClose(true);
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
