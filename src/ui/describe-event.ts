// One human line per event worth showing; undefined for events that are not (output, usage).
import type { RunEvent } from '../loop/events.js';
import { formatDuration } from '../util/duration.js';
import { cutAtWord, failureLine } from '../util/failure-line.js';
import { stripControl, stripControlLine } from './sanitize.js';
import { waitLine } from './wait-line.js';

function money(usd: number | null): string {
  return usd === null ? 'cost unknown' : `$${usd.toFixed(4)}`;
}

const FORMAT_CHOSEN = {
  flag: 'from --stream-format',
  preset: "the agent preset's",
  plan: "from the plan's stream_format",
  command: 'chosen from the command',
  default: 'the default',
} as const;

const TAIL_LINES = 8;

/** A rejected claim: why, and the last lines of a failed verify command's output (or "(no output)"). */
function rejected(reason: string): string {
  const [first = '', ...rest] = stripControl(reason).split('\n');
  const tail = rest.filter((l) => l.trim() !== '').slice(-TAIL_LINES);
  return [`claim rejected: ${first}`, ...tail.map((l) => `  | ${l}`)].join('\n');
}

/** Which config file a run obeys (docs/config.md#finding-the-file). */
export function configNote(file: string | null | undefined): string {
  return file === undefined ? '' : file === null ? '; no config file' : `; config ${stripControlLine(file)}`;
}

const REFUSED = { write: 'a write to', read: 'a read of', network: 'a connection to' } as const;

/** One line per refused path or host: the first time, then with its count when it came again. */
function sandboxDenied(e: Extract<RunEvent, { type: 'sandbox_denied' }>): string {
  const by = e.by === 'verify' ? 'a verify command' : 'the agent';
  const times = e.count > 1 ? ` (${e.count} times)` : '';
  return `warning: sandbox refused ${REFUSED[e.what]} ${stripControl(e.target).slice(0, 200)} by ${by}${times}`;
}

/** One or more lines (joined by \n) for an event worth showing; undefined for the others. */
export function describeEvent(e: RunEvent): string | undefined {
  switch (e.type) {
    case 'run-start':
      return `${e.mode === 'resume' ? 'resuming' : 'starting'} run ${e.runId}: plan ${e.plan} with ${e.agent !== undefined ? `agent ${stripControl(e.agent)}` : `the ${e.executor} executor`} (run dir ${e.runDir}${configNote(e.config)})`;
    case 'iteration-start':
      return `iteration ${e.iteration}/${e.maxIterations} started (${e.fresh ? 'fresh context' : 'same context'}, ${e.prompt} prompt)`;
    case 'signal':
      return `signal ${e.name}${e.args.length ? `:${stripControl(e.args.join(':'))}` : ''} (${e.source}${e.line !== undefined ? ` line ${e.line}` : ''})`;
    case 'malformed':
      return `malformed signal ignored at ${e.stream} line ${e.line}: ${stripControl(e.why)}`;
    case 'ignored':
      return undefined;
    case 'near_miss':
      return `warning: not a signal at ${e.stream} line ${e.line}: ${cutAtWord(stripControl(e.text), 120)} (${cutAtWord(stripControl(e.hint), 200)})`;
    case 'observation':
      return e.record.valid
        ? `observation [${e.record.severity}] ${e.record.type}: ${stripControl(e.record.title ?? '')}`
        : `invalid observation recorded: ${stripControl(e.record.error ?? '')}`;
    case 'tool':
      return e.error !== undefined ? `tool ${stripControl(e.name)} failed: ${stripControl(failureLine(e.error))}` : undefined;
    case 'warning':
      return `warning: ${stripControl(e.message)}`;
    case 'agent':
      return `agent${e.name ? ` ${e.name}` : ''}: ${stripControl(e.command.join(' '))} (stream format ${e.streamFormat}, ${FORMAT_CHOSEN[e.formatChosen]})`;
    case 'stop':
      return `stopping the agent (${e.cause}): ${stripControl(e.detail)}`;
    case 'silence':
      return `no output for ${formatDuration(e.silentMs)} (the executor is stopped at ${formatDuration(e.timeoutMs)})`;
    case 'decision':
      return `decision: ${e.decision.kind}${'reason' in e.decision && e.decision.reason ? ` (${stripControl(e.decision.reason)})` : ''}`;
    case 'gate':
      return e.accepted ? `claim accepted: ${stripControl(e.reason)}` : rejected(e.reason);
    case 'tasks': {
      // Task names come from the plan, not the agent, but are still shown the safe way.
      const names = (list: string[]) => list.map((t) => `"${stripControl(t)}"`).join(', ');
      const parts = [e.iteration === 0 ? `${e.verified} before the first iteration${e.detail ? `; ${e.detail}` : ''}` : `${e.verified} after iteration ${e.iteration}`];
      if (e.passing.length && e.iteration > 0) parts.push(`now passing: ${names(e.passing)}`);
      if (e.regressed.length) parts.push(`regressed: ${names(e.regressed)}`);
      return parts.join('; ');
    }
    case 'processes-stopped':
      return `stopped ${e.processes.length} process(es) the agent left running after iteration ${e.iteration}: ${e.processes
        .slice(0, 5)
        .map((p) => `${stripControl(p.command)} (${p.pid})`)
        .join(', ')}${e.processes.length > 5 ? ', …' : ''}`;
    case 'transcript-cut':
      return `iteration ${e.iteration} wrote ${e.totalBytes} bytes: its log keeps the first and last ${Math.floor(e.maxBytes / 2)} (--max-log), ${e.droppedBytes} bytes in between were dropped`;
    case 'iteration-end':
      // The decision has its own line (and a rejected claim its "claim rejected" line).
      return `iteration ${e.iteration} ended after ${formatDuration(e.durationMs)} (exit ${e.exitCode ?? 'by signal'})`;
    case 'run-end': {
      // The run directory ends the last line, so the path a user needs is whole and last on screen.
      const n = e.result.iterations;
      return [
        `run ${e.outcome} (exit ${e.exitCode}): ${stripControl(e.reason)}`,
        `${e.outcome} after ${n} iteration${n === 1 ? '' : 's'}, ${money(e.result.costUsd)}; results in ${e.result.runDir ?? 'an unknown folder'}`,
      ].join('\n');
    }
    case 'limit':
      return `${e.kind} limit reported: ${cutAtWord(stripControl(e.message), 200)}`;
    case 'wait_start':
      return waitLine(e.kind, new Date(e.until), new Date());
    case 'wait_end':
      return e.end === 'done' ? `the wait is over after ${formatDuration(e.waitedMs)}: running iteration ${e.iteration} again` : undefined;
    case 'sandbox':
      return e.mode === 'on' ? `sandbox ${stripControl(e.why)}: writes go to ${(e.writable ?? []).map(stripControl).join(', ')}; hosts: ${(e.hosts ?? []).map(stripControl).join(', ') || 'none'}` : undefined;
    case 'sandbox_denied':
      return sandboxDenied(e);
    case 'output':
    case 'usage':
      return undefined;
    default: {
      const never: never = e;
      throw new Error(`unknown event ${JSON.stringify(never)}`);
    }
  }
}
