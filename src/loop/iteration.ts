// One iteration: the executor runs with this iteration's prompt while its output streams through
// the signal parsers. Every way the executor can be stopped early is raced here, and the first
// cause is kept (silence, a timeout, a decision's grace, a limit, an error loop, an interrupt).
import { StringDecoder } from 'node:string_decoder';
import type { Executor, ExecutorEvent, Prompt, TokenUsage } from '../executors/types.js';
import { addUsage, ZERO_USAGE } from '../executors/types.js';
import { SignalParser, type ParserEvent, type Weighed } from '../signals/index.js';
import type { Transcript } from '../runs/transcript.js';
import type { RunBus } from './bus.js';
import type { Clock } from './clock.js';
import { ErrorLoopDetector } from './error-loop.js';
import { mergeLimit } from './limit-wait.js';
import { quietLimit, SilenceWatchdog } from './silence-watchdog.js';
import { groupIoBytes } from '../executors/proc-stat.js';

export type StopCause =
  | 'silence'
  | 'iteration_timeout'
  | 'signal_grace'
  | 'interrupt'
  | 'limit'
  | 'error_loop'
  | 'agent_error'
  | 'usage_limit'
  | 'flood'
  | 'disk_full';

export type NearMiss = Omit<Extract<ParserEvent, { type: 'near_miss' }>, 'type'> & { stream: 'stdout' | 'stderr' };

/** Output past this many times --max-log in one iteration is a flood: the executor is stopped. */
export const FLOOD_FACTOR = 10;

export interface IterationInput {
  executor: Executor;
  prompt: Prompt;
  fresh: boolean;
  iteration: number;
  cwd: string;
  env: Record<string, string>;
  /** Variables the agent must not receive (docs/config.md: secrets). */
  hideEnv?: readonly string[];
  bus: RunBus;
  transcript: Transcript;
  clock: Clock;
  silenceTimeoutMs: number;
  iterationTimeoutMs?: number;
  signalGraceMs: number;
  /** Aborted by the run: interrupt, or a run-wide limit (runtime). */
  runSignal: AbortSignal;
  /** Cost so far in the run, before this iteration (null: unknown). */
  costBefore: number | null;
  /** Tokens so far in the run, before this iteration. */
  tokensBefore?: TokenUsage;
  maxCostUsd?: number;
  /** What is left of --max-cost, for agents that accept a budget. */
  budgetUsd?: number;
  /** Whether anyone shows output (the UI); decoding text for nobody is wasted work. */
  wantOutput: boolean;
  onProcess?: (pid: number) => void;
  /** The transcript's cap (--max-log): FLOOD_FACTOR times it stops the executor. */
  maxLogBytes?: number;
}

export interface IterationResult {
  weighed: Weighed[];
  blockerObservation: boolean;
  exitCode: number | null;
  exitError?: string;
  fatal: boolean;
  stop?: { cause: StopCause; detail: string };
  tokens: TokenUsage;
  /** Cost reported in this iteration (null: none reported, or unknown price). */
  costUsd: number | null;
  /** Input tokens of the last request, for the context budget. */
  contextTokens: number;
  sessionId?: string;
  /** The last usage or rate limit the executor reported: the run waits instead of failing. */
  limit?: Extract<ExecutorEvent, { type: 'limit' }>;
  /** Tool calls the agent's permission system refused in this iteration. */
  denials: { tool: string; summary: string }[];
  /** What identifies each valid observation of this iteration (a new one counts as progress). */
  findings: string[];
  /** Lines that carried a signal but were not one (docs/overnight.md#near-misses). */
  nearMisses: NearMiss[];
  /** Why the agent failed, in its words: its last error event, else the last lines of its stderr. */
  failureDetail?: string;
  /** Asked to resume a session, the agent said it has none: a fresh context follows at once. */
  resumeRefused?: boolean;
  /** The agent said or did something (stdout text, a tool, usage): not a failure at start-up. */
  agentActive: boolean;
  durationMs: number;
}

export async function runIteration(input: IterationInput): Promise<IterationResult> {
  const { bus, iteration, clock } = input;
  const started = clock.now();
  const abort = new AbortController();
  let stop: IterationResult['stop'];
  // Every stop ralph makes is an event with its cause (docs/agents.md, "Stopping an agent").
  const stopWith = (cause: StopCause, detail: string) => {
    if (stop) return;
    stop = { cause, detail };
    bus.emitEvent({ type: 'stop', iteration, cause, detail });
    abort.abort(cause);
  };

  const result: IterationResult = {
    weighed: [],
    blockerObservation: false,
    exitCode: null,
    fatal: false,
    tokens: { ...ZERO_USAGE },
    costUsd: null,
    contextTokens: 0,
    denials: [],
    findings: [],
    nearMisses: [],
    agentActive: false,
    durationMs: 0,
  };
  let lastError: string | undefined;

  // A failed, blocked or bailout signal has decided the iteration: let the agent finish its
  // sentence, then stop it instead of letting it run on and spend.
  let graceTimer: unknown;
  const onParserEvent = (stream: 'stdout' | 'stderr') => (e: ParserEvent) => {
    // Once ralph has asked the agent to stop, what it says next decides nothing (docs/agents.md).
    if (stop && (e.type === 'signal' || e.type === 'claim')) {
      bus.emitEvent({ type: 'ignored', iteration, line: e.line, text: e.type === 'signal' ? `###${[e.name, ...e.args].join(':')}###` : e.name, why: `after ralph asked the agent to stop (${stop.cause})`, stream });
      return;
    }
    switch (e.type) {
      case 'signal':
        result.weighed.push({ class: e.class, name: e.name, args: e.args, source: stream });
        bus.emitEvent({ type: 'signal', iteration, name: e.name, args: e.args, source: stream, line: e.line });
        if (e.class !== 'complete' && graceTimer === undefined) {
          graceTimer = clock.setTimeout(
            () => stopWith('signal_grace', `${e.name} signalled; the executor was stopped after ${input.signalGraceMs} ms of grace`),
            input.signalGraceMs,
          );
        }
        break;
      case 'claim':
        result.weighed.push({ class: 'complete', name: e.name, args: [], source: stream });
        bus.emitEvent({ type: 'signal', iteration, name: e.name, args: [], source: stream, line: e.line });
        break;
      case 'malformed':
        bus.emitEvent({ type: 'malformed', iteration, line: e.line, text: e.text, why: e.why, stream });
        break;
      case 'ignored':
        bus.emitEvent({ type: 'ignored', iteration, line: e.line, text: e.text, why: e.why, stream });
        break;
      case 'observation':
        if (e.record.valid && e.record.type === 'blocker') result.blockerObservation = true;
        if (e.record.valid) result.findings.push(`${e.record.type}\0${(e.record.title ?? '').trim().toLowerCase()}\0${e.record.file ?? ''}`);
        bus.emitEvent({ type: 'observation', iteration, record: e.record });
        break;
      case 'near_miss': {
        // Never acted on: shown, and quoted in the next prompt if the iteration decides nothing.
        const miss = { line: e.line, text: e.text, reason: e.reason, hint: e.hint, correct: e.correct, stream };
        result.nearMisses.push(miss);
        bus.emitEvent({ type: 'near_miss', iteration, ...miss });
        break;
      }
      default: {
        const never: never = e;
        throw new Error(`unknown parser event ${JSON.stringify(never)}`);
      }
    }
  };
  const parsers = { stdout: new SignalParser(onParserEvent('stdout')), stderr: new SignalParser(onParserEvent('stderr')) };
  const decoders = { stdout: new StringDecoder('utf8'), stderr: new StringDecoder('utf8') };

  let group: number | undefined;
  const watchdog = new SilenceWatchdog({
    timeoutMs: input.silenceTimeoutMs,
    clock,
    // Silent retries are not silence: I/O of the agent's processes keeps a quiet agent alive (docs/loop.md#silence).
    ioBytes: () => (group === undefined ? undefined : groupIoBytes(group)),
    onQuietWork: (silentMs) =>
      bus.emitEvent({
        type: 'warning',
        iteration,
        message: `no output for ${Math.round(silentMs / 1000)} s, but the agent's processes are still reading and writing (retrying its API?): waiting up to ${Math.round(quietLimit(input.silenceTimeoutMs) / 60_000)} min of silence`,
      }),
    onWarn: (silentMs) => bus.emitEvent({ type: 'silence', iteration, silentMs, timeoutMs: input.silenceTimeoutMs }),
    onFire: (silentMs) => stopWith('silence', `no output for ${Math.round(silentMs / 1000)} s (silence timeout ${Math.round(input.silenceTimeoutMs / 1000)} s)`),
  });
  const iterationTimer =
    input.iterationTimeoutMs !== undefined
      ? clock.setTimeout(() => stopWith('iteration_timeout', `the iteration ran longer than ${input.iterationTimeoutMs} ms`), input.iterationTimeoutMs)
      : undefined;
  const onRunAbort = () => {
    const reason = input.runSignal.reason;
    if (reason && typeof reason === 'object' && 'limit' in reason) stopWith('limit', String((reason as { limit: string }).limit));
    else stopWith('interrupt', 'interrupted');
  };
  if (input.runSignal.aborted) onRunAbort();
  else input.runSignal.addEventListener('abort', onRunAbort, { once: true });

  const floodBytes = input.maxLogBytes !== undefined ? input.maxLogBytes * FLOOD_FACTOR : Infinity;
  // After each write to the transcript: a flood, or a disk that can take no more, ends the iteration.
  const checkTranscript = (): void => {
    const t = input.transcript;
    if (t.error) stopWith('disk_full', `cannot write the transcript ${t.path}: ${t.error.code ?? t.error.message}`);
    else if (t.total > floodBytes) stopWith('flood', `the agent wrote more than ${floodBytes} bytes in one iteration (${FLOOD_FACTOR} × --max-log)`);
  };
  const errorLoop = new ErrorLoopDetector();
  const handle = (ev: ExecutorEvent): void => {
    switch (ev.type) {
      case 'text':
        watchdog.touch();
        if (ev.stream === 'stdout') result.agentActive = true;
        if (!ev.parseOnly) {
          input.transcript.write(ev.chunk);
          checkTranscript();
        }
        // Shown before it is parsed, so a signal's line appears before ralph's word on it.
        if (input.wantOutput) {
          const text = typeof ev.chunk === 'string' ? ev.chunk : decoders[ev.stream].write(ev.chunk);
          if (text) bus.emitEvent({ type: 'output', iteration, stream: ev.stream, text });
        }
        if (ev.messageStart) parsers[ev.stream].resetBlocks();
        parsers[ev.stream].push(ev.chunk);
        break;
      case 'log':
        watchdog.touch();
        input.transcript.write(ev.chunk);
        checkTranscript();
        break;
      case 'activity':
        watchdog.touch();
        break;
      case 'usage': {
        watchdog.touch();
        result.agentActive = true;
        result.tokens = addUsage(result.tokens, ev.tokens);
        if (ev.costUsd !== null) result.costUsd = (result.costUsd ?? 0) + ev.costUsd;
        if (ev.contextTokens !== undefined) result.contextTokens = ev.contextTokens;
        const spent = input.costBefore === null && result.costUsd === null ? null : (input.costBefore ?? 0) + (result.costUsd ?? 0);
        bus.emitEvent({
          type: 'usage',
          iteration,
          tokens: ev.tokens,
          costUsd: ev.costUsd,
          totalCostUsd: spent,
          totalTokens: addUsage(input.tokensBefore ?? ZERO_USAGE, result.tokens),
          ...(ev.estimate ? { estimate: true } : {}),
        });
        if (input.maxCostUsd !== undefined && spent !== null && spent >= input.maxCostUsd) {
          stopWith('limit', `max_cost reached: $${spent.toFixed(4)} spent of $${input.maxCostUsd}`);
        }
        break;
      }
      case 'tool': {
        watchdog.touch();
        result.agentActive = true;
        bus.emitEvent({
          type: 'tool',
          iteration,
          name: ev.name,
          summary: ev.summary,
          phase: ev.phase ?? 'result',
          ...(ev.error !== undefined ? { error: ev.error } : {}),
        });
        if (ev.error !== undefined) {
          const looping = errorLoop.record(`${ev.name}: ${ev.error}`);
          if (looping) stopWith('error_loop', `the same tool error 3 times in a row (${ev.name}): ${ev.error.slice(0, 200)}`);
        } else if (ev.phase !== 'call') {
          errorLoop.success();
        }
        break;
      }
      case 'session':
        result.sessionId = ev.id;
        break;
      case 'process':
        group = ev.pid;
        input.onProcess?.(ev.pid);
        break;
      case 'warning':
        bus.emitEvent({ type: 'warning', iteration, message: ev.message });
        break;
      case 'error':
        watchdog.touch();
        lastError = ev.message;
        // A refusal for a limit is shown once, by its limit event.
        if (ev.limit !== true) bus.emitEvent({ type: 'warning', iteration, message: ev.message });
        if (ev.fatal) {
          // No retry can succeed (a refused API key): stop now rather than let the agent retry for minutes.
          result.fatal = true;
          result.exitError = ev.message;
          stopWith('agent_error', ev.message);
        }
        break;
      case 'limit':
        watchdog.touch();
        // One refusal often comes as several events: an exact reset time is never replaced by one
        // read from words (docs/overnight.md).
        result.limit = mergeLimit(result.limit, ev);
        bus.emitEvent({ type: 'limit', iteration, kind: ev.kind, message: ev.message, ...(ev.resetsAt !== undefined ? { resetsAt: new Date(ev.resetsAt).toISOString() } : {}) });
        // The agent usually exits by itself after a refusal; one that hangs on is stopped.
        if (graceTimer === undefined) {
          graceTimer = clock.setTimeout(() => stopWith('usage_limit', `${ev.kind} limit reported; the executor was stopped after ${input.signalGraceMs} ms of grace`), input.signalGraceMs);
        }
        break;
      case 'permission_denied':
        watchdog.touch();
        result.denials.push({ tool: ev.tool, summary: ev.summary });
        bus.emitEvent({ type: 'warning', iteration, message: `permission denied: ${ev.tool}${ev.summary ? ` (${ev.summary.slice(0, 160)})` : ''}` });
        break;
      case 'exit':
        result.exitCode = ev.code;
        if (ev.error !== undefined) result.exitError = ev.error;
        if (ev.fatal === true) result.fatal = true;
        if (ev.stderrTail !== undefined) result.failureDetail = ev.stderrTail;
        if (ev.resumeRefused === true) result.resumeRefused = true;
        break;
      default: {
        const never: never = ev;
        throw new Error(`unknown executor event ${JSON.stringify(never)}`);
      }
    }
  };

  try {
    for await (const ev of input.executor.run({
      prompt: input.prompt,
      cwd: input.cwd,
      fresh: input.fresh,
      iteration,
      env: input.env,
      ...(input.hideEnv ? { hideEnv: input.hideEnv } : {}),
      signal: abort.signal,
      now: () => clock.now(),
      ...(input.budgetUsd !== undefined ? { budgetUsd: input.budgetUsd } : {}),
    })) {
      handle(ev);
    }
  } catch (error) {
    // An executor must report failures as an exit event; one that throws is treated the same.
    result.exitCode = null;
    result.exitError = `the executor failed: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    // What is still gathered goes to the file now: a disk that cannot take it ends the run as any full disk.
    input.transcript.flush();
    checkTranscript();
    watchdog.stop();
    if (graceTimer !== undefined) clock.clearTimeout(graceTimer);
    if (iterationTimer !== undefined) clock.clearTimeout(iterationTimer);
    input.runSignal.removeEventListener('abort', onRunAbort);
    parsers.stdout.end();
    parsers.stderr.end();
    for (const s of ['stdout', 'stderr'] as const) {
      const rest = decoders[s].end();
      if (rest && input.wantOutput) bus.emitEvent({ type: 'output', iteration, stream: s, text: rest });
    }
  }
  if (lastError !== undefined) result.failureDetail = lastError;
  if (stop) result.stop = stop;
  result.durationMs = clock.now() - started;
  return result;
}

