// Decodes `codex exec --json` (JSONL: thread.*, turn.*, item.*, error). Only `agent_message`
// items become text for the parser; command output, file changes and reasoning never do.
//
// Token mapping: codex reports `input_tokens` with the cached reads and writes included and given
// again as `cached_input_tokens` and `cache_write_input_tokens`. ralph counts like the Anthropic
// API, where `input` excludes both, so input = input_tokens − cached − cache writes. The stream
// has no prices: costUsd is null.
//
// After `codex exec … resume <thread>`, `turn.completed.usage` is the thread's running total, not
// the turn's. The last total of each thread is kept in a ledger that lives as long as the executor
// (across iterations), and each turn reports the difference (docs/agents.md).
import type { ExecutorEvent } from '../types.js';
import { agentErrorEvents } from './agent-error.js';
import type { StreamDecoder } from './stream-decoder.js';
import {
  ERROR_MAX,
  WARNING_MAX,
  asArray,
  asCount,
  asObject,
  asString,
  bounded,
  endLine,
  oneLine,
  type JsonObject,
} from './untrusted.js';

/** The end of a command's output says why it failed. */
function tail(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(text.length - (max - 1))}`;
}

/** Raw running totals as codex reports them. */
export interface CodexTotals {
  input: number;
  cached: number;
  cacheWrite: number;
  output: number;
}

/** thread id → the last running total it reported. */
export type CodexLedger = Map<string, CodexTotals>;

export class CodexStreamDecoder implements StreamDecoder {
  readonly format = 'codex-json';
  private thread: string | undefined;
  private lastFailure: string | undefined;
  /** A turn started and has not reported its end (with its tokens) yet. */
  private turnOpen = false;

  constructor(
    private readonly ledger: CodexLedger = new Map(),
    /** The loop's clock, against which "try again at 7:33 PM" is read. */
    private readonly now: () => number = Date.now,
    /** Notices already shown in this run: Codex repeats its own at every start. */
    private readonly notices: Set<string> = new Set(),
  ) {}

  decode(event: JsonObject): ExecutorEvent[] {
    switch (event.type) {
      case 'thread.started': {
        const id = asString(event.thread_id);
        this.thread = id;
        return id ? [{ type: 'session', id }] : [];
      }
      case 'item.completed': {
        const item = asObject(event.item);
        return item ? this.item(item) : [];
      }
      case 'turn.started':
        this.turnOpen = true;
        return [];
      case 'turn.completed':
        this.turnOpen = false;
        return [this.usage(asObject(event.usage) ?? {})];
      case 'turn.failed':
        this.turnOpen = false;
        return this.failure('turn failed', asString(asObject(event.error)?.message));
      case 'error':
        return this.failure('error', asString(event.message));
      default:
        return [];
    }
  }

  /**
   * Codex reports a turn's tokens only when the turn ends; stopped mid-turn (SIGINT or SIGTERM)
   * Codex 0.169.0 prints none. They are not known, and the run says so rather than count them as 0.
   */
  end(): ExecutorEvent[] {
    if (!this.turnOpen) return [];
    this.turnOpen = false;
    return [{ type: 'warning', message: 'codex: the turn ended without reporting its tokens (it was stopped before it finished): they are not counted in the run’s totals' }];
  }

  private item(item: JsonObject): ExecutorEvent[] {
    switch (item.type) {
      case 'agent_message': {
        const text = asString(item.text);
        return text ? [{ type: 'text', stream: 'stdout', chunk: endLine(text), parseOnly: true, messageStart: true }] : [];
      }
      case 'command_execution':
        return [this.command(item)];
      case 'file_change': {
        const summary = asArray(item.changes)
          .map((c) => asObject(c))
          .map((c) => `${asString(c?.kind) ?? 'change'} ${asString(c?.path) ?? '?'}`)
          .join(', ');
        return [this.tool('file_change', summary, item.status === 'failed' ? 'file change failed' : undefined)];
      }
      case 'mcp_tool_call': {
        const name = `${asString(item.server) ?? 'mcp'}.${asString(item.tool) ?? 'tool'}`;
        const failed = item.status === 'failed' || asObject(item.error) !== undefined;
        const message = asString(asObject(item.error)?.message) ?? 'tool call failed';
        return [this.tool(name, oneLine(JSON.stringify(item.arguments ?? '') ?? ''), failed ? message : undefined)];
      }
      case 'web_search':
        return [this.tool('web_search', asString(item.query) ?? '')];
      case 'error': {
        // Codex's own notices ("Model metadata for `gpt-5-codex` not found …") come at every start: once per run is enough.
        const message = asString(item.message);
        if (message !== undefined && this.notices.has(message)) return [];
        if (message !== undefined) this.notices.add(message);
        return [this.warning('error', message)];
      }
      default:
        return []; // reasoning, todo_list, and types this version does not know
    }
  }

  private command(item: JsonObject): ExecutorEvent {
    const summary = asString(item.command) ?? '';
    const code = item.exit_code;
    const output = asString(item.aggregated_output) ?? '';
    let error: string | undefined;
    if (typeof code === 'number' && code !== 0) {
      error = tail(`exit code ${code}${output ? `\n${output}` : ''}`, ERROR_MAX);
    } else if (item.status === 'failed' || item.status === 'declined') {
      error = tail(`${item.status}${output ? `\n${output}` : ''}`, ERROR_MAX);
    }
    return this.tool('command_execution', summary, error);
  }

  private tool(name: string, summary: string, error?: string): ExecutorEvent {
    const event: ExecutorEvent = { type: 'tool', name, summary: oneLine(summary) };
    if (error !== undefined) event.error = error;
    return event;
  }

  private usage(usage: JsonObject): ExecutorEvent {
    const total: CodexTotals = {
      input: asCount(usage.input_tokens),
      cached: asCount(usage.cached_input_tokens),
      cacheWrite: asCount(usage.cache_write_input_tokens),
      output: asCount(usage.output_tokens),
    };
    const before = this.thread === undefined ? undefined : this.ledger.get(this.thread);
    if (this.thread !== undefined) this.ledger.set(this.thread, total);
    // A total below the last one is not a running total (a new thread under an old id): take it whole.
    const grew = before !== undefined && total.input >= before.input && total.cached >= before.cached && total.cacheWrite >= before.cacheWrite && total.output >= before.output;
    const turn = grew
      ? { input: total.input - before.input, cached: total.cached - before.cached, cacheWrite: total.cacheWrite - before.cacheWrite, output: total.output - before.output }
      : total;
    const cached = Math.min(turn.cached, turn.input);
    const cacheWrite = Math.min(turn.cacheWrite, turn.input - cached);
    return {
      type: 'usage',
      tokens: { input: turn.input - cached - cacheWrite, output: turn.output, cacheRead: cached, cacheWrite },
      costUsd: null,
    };
  }

  /** An `error` or a failed turn: a limit to wait for, a refused key (fatal), or an error. */
  private failure(what: string, message: string | undefined): ExecutorEvent[] {
    // `turn.failed` repeats the `error` before it: report it once.
    if (message !== undefined && message === this.lastFailure) return [];
    this.lastFailure = message;
    return agentErrorEvents({ message: bounded(`codex ${what}${message ? `: ${message}` : ''}`, WARNING_MAX), text: message ?? '', now: this.now() });
  }

  private warning(what: string, message: string | undefined): ExecutorEvent {
    return { type: 'warning', message: bounded(`codex ${what}${message ? `: ${message}` : ''}`, WARNING_MAX) };
  }
}
