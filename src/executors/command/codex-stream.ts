// Decodes `codex exec --json` (JSONL: thread.*, turn.*, item.*, error). Only `agent_message`
// items become text for the parser; command output, file changes and reasoning never do.
//
// Token mapping: codex reports `input_tokens` with the cached part included and given again as
// `cached_input_tokens`. ralph counts like the Anthropic API, where `input` excludes cache reads,
// so input = input_tokens − cached_input_tokens, cacheRead = cached_input_tokens,
// output = output_tokens, cacheWrite = 0. The stream has no prices: costUsd is null.
import type { ExecutorEvent } from '../types.js';
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

export class CodexStreamDecoder implements StreamDecoder {
  readonly format = 'codex-json';

  decode(event: JsonObject): ExecutorEvent[] {
    switch (event.type) {
      case 'thread.started': {
        const id = asString(event.thread_id);
        return id ? [{ type: 'session', id }] : [];
      }
      case 'item.completed': {
        const item = asObject(event.item);
        return item ? this.item(item) : [];
      }
      case 'turn.completed':
        return [this.usage(asObject(event.usage) ?? {})];
      case 'turn.failed':
        return [this.warning('turn failed', asString(asObject(event.error)?.message))];
      case 'error':
        return [this.warning('error', asString(event.message))];
      default:
        return [];
    }
  }

  private item(item: JsonObject): ExecutorEvent[] {
    switch (item.type) {
      case 'agent_message': {
        const text = asString(item.text);
        return text ? [{ type: 'text', stream: 'stdout', chunk: endLine(text), parseOnly: true }] : [];
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
      case 'error':
        return [this.warning('error', asString(item.message))];
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
    const input = asCount(usage.input_tokens);
    const cached = Math.min(asCount(usage.cached_input_tokens), input);
    return {
      type: 'usage',
      tokens: { input: input - cached, output: asCount(usage.output_tokens), cacheRead: cached, cacheWrite: 0 },
      costUsd: null,
    };
  }

  private warning(what: string, message: string | undefined): ExecutorEvent {
    return { type: 'warning', message: bounded(`codex ${what}${message ? `: ${message}` : ''}`, WARNING_MAX) };
  }
}
