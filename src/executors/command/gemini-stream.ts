// Decodes Gemini CLI's `--output-format stream-json` (docs/agents.md): JSONL events `init`
// (session_id), `message` (role user|assistant, `content`, `delta: true` for pieces of one
// message), `tool_use`, `tool_result` (status success|error), `error` (severity warning|error) and
// `result` (status, stats). Only assistant messages are the agent's words; pieces of one message
// are joined and the message ends a line when anything else arrives. The user message (ralph's
// own prompt, echoed back) is never read.
//
// Tokens: stats.input_tokens includes the cached part, given again as `cached` (with `input` the
// rest), so input = input_tokens − cached, cacheRead = cached. No prices: costUsd is null.
import type { ExecutorEvent } from '../types.js';
import { summarizeToolInput } from './claude-stream.js';
import { agentErrorEvents } from './agent-error.js';
import type { StreamDecoder } from './stream-decoder.js';
import { ERROR_MAX, WARNING_MAX, asCount, asObject, asString, bounded, oneLine, type JsonObject } from './untrusted.js';

export class GeminiStreamDecoder implements StreamDecoder {
  readonly format = 'gemini-json';
  private readonly tools = new Map<string, { name: string; summary: string }>();
  /** An assistant message is being written and has not ended its line yet. */
  private open = false;

  /** `now`: the loop's clock, against which "resets 3am" is read. */
  constructor(private readonly now: () => number = Date.now) {}

  decode(event: JsonObject): ExecutorEvent[] {
    const out: ExecutorEvent[] = [];
    if (event.type !== 'message' || event.role !== 'assistant') this.closeLine(out);
    switch (event.type) {
      case 'init': {
        const id = asString(event.session_id);
        if (id) out.push({ type: 'session', id });
        break;
      }
      case 'message': {
        if (event.role !== 'assistant') break;
        const text = asString(event.content);
        if (!text) break;
        // A whole message (no delta) stands alone; pieces run on until something else comes.
        if (event.delta !== true) this.closeLine(out);
        out.push({ type: 'text', stream: 'stdout', chunk: text, parseOnly: true });
        this.open = !text.endsWith('\n');
        if (event.delta !== true) this.closeLine(out);
        break;
      }
      case 'tool_use': {
        const name = asString(event.tool_name) ?? 'tool';
        const summary = summarizeToolInput(event.parameters);
        const id = asString(event.tool_id);
        if (id !== undefined) this.tools.set(id, { name, summary });
        out.push({ type: 'tool', name, summary, phase: 'call' });
        break;
      }
      case 'tool_result': {
        const id = asString(event.tool_id);
        const call = id === undefined ? undefined : this.tools.get(id);
        if (id !== undefined) this.tools.delete(id);
        const finished: ExecutorEvent = { type: 'tool', name: call?.name ?? 'tool', summary: call?.summary ?? '' };
        if (event.status === 'error') finished.error = bounded(asString(asObject(event.error)?.message) ?? asString(event.output) ?? 'failed', ERROR_MAX);
        out.push(finished);
        break;
      }
      case 'error': {
        const message = asString(event.message);
        if (message) out.push(...this.failure(message, event.severity === 'warning'));
        break;
      }
      case 'result': {
        const stats = asObject(event.stats);
        if (stats) {
          const input = asCount(stats.input_tokens);
          const cached = Math.min(asCount(stats.cached), input);
          out.push({ type: 'usage', tokens: { input: input - cached, output: asCount(stats.output_tokens), cacheRead: cached, cacheWrite: 0 }, costUsd: null });
        }
        if (event.status === 'error') {
          const error = asObject(event.error);
          out.push(...this.failure(asString(error?.message) ?? asString(error?.type) ?? 'the run failed', false));
        }
        break;
      }
      default:
        break;
    }
    return out;
  }

  end(): ExecutorEvent[] {
    const out: ExecutorEvent[] = [];
    this.closeLine(out);
    return out;
  }

  private closeLine(out: ExecutorEvent[]): void {
    if (!this.open) return;
    this.open = false;
    out.push({ type: 'text', stream: 'stdout', chunk: '\n', parseOnly: true });
  }

  private failure(message: string, warningOnly: boolean): ExecutorEvent[] {
    const text = bounded(`gemini reported ${warningOnly ? 'a warning' : 'an error'}: ${oneLine(message, WARNING_MAX)}`, WARNING_MAX);
    if (warningOnly) return [{ type: 'warning', message: text }];
    return agentErrorEvents({ message: text, text: message, now: this.now() });
  }
}
