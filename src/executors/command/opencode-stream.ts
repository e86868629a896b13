// Decodes `opencode run --format json` (docs/agents.md): JSONL events, each with `type`,
// `timestamp`, `sessionID` and a `part` (or `error`): `text` (a finished text part of the main
// session: the agent's words), `reasoning`, `tool_use` (a finished tool part, state.status
// completed|error), `step_start`, `step_finish` (part.tokens and part.cost of one model step),
// `error` (error.name, error.data.message, error.data.statusCode) and `done`.
//
// Tokens: part.tokens.input excludes the cache, given as cache.read and cache.write; reasoning
// tokens are billed as output and counted there. Cost: part.cost, in USD.
import type { ExecutorEvent } from '../types.js';
import { summarizeToolInput } from './claude-stream.js';
import { agentErrorEvents } from './agent-error.js';
import type { StreamDecoder } from './stream-decoder.js';
import { ERROR_MAX, WARNING_MAX, asCost, asCount, asObject, asString, bounded, endLine, oneLine, type JsonObject } from './untrusted.js';

export class OpencodeStreamDecoder implements StreamDecoder {
  readonly format = 'opencode-json';
  private session: string | undefined;

  /** `now`: the loop's clock, against which "resets 3am" is read. */
  constructor(private readonly now: () => number = Date.now) {}

  decode(event: JsonObject): ExecutorEvent[] {
    const out: ExecutorEvent[] = [];
    const id = asString(event.sessionID);
    if (id && id !== this.session) {
      this.session = id;
      out.push({ type: 'session', id });
    }
    const part = asObject(event.part) ?? {};
    switch (event.type) {
      case 'text': {
        const text = asString(part.text);
        if (text) out.push({ type: 'text', stream: 'stdout', chunk: endLine(text), parseOnly: true });
        break;
      }
      case 'tool_use': {
        const state = asObject(part.state) ?? {};
        const name = asString(part.tool) ?? 'tool';
        const tool: ExecutorEvent = { type: 'tool', name, summary: summarizeToolInput(state.input) };
        if (state.status === 'error') tool.error = bounded(asString(state.error) ?? 'failed', ERROR_MAX);
        out.push(tool);
        break;
      }
      case 'step_finish': {
        const tokens = asObject(part.tokens);
        const cache = asObject(tokens?.cache) ?? {};
        if (tokens) {
          out.push({
            type: 'usage',
            tokens: {
              input: asCount(tokens.input),
              output: asCount(tokens.output) + asCount(tokens.reasoning),
              cacheRead: asCount(cache.read),
              cacheWrite: asCount(cache.write),
            },
            costUsd: asCost(part.cost),
          });
        }
        break;
      }
      case 'error':
        out.push(...this.failure(asObject(event.error) ?? {}));
        break;
      default:
        break; // step_start, reasoning (not the agent's words), done
    }
    return out;
  }

  private failure(error: JsonObject): ExecutorEvent[] {
    const data = asObject(error.data) ?? {};
    const message = asString(data.message) ?? asString(error.name) ?? 'error';
    const status = typeof data.statusCode === 'number' ? data.statusCode : undefined;
    const text = bounded(`opencode reported an error${status !== undefined ? ` (HTTP ${status})` : ''}: ${oneLine(message, WARNING_MAX)}`, WARNING_MAX);
    const name = asString(error.name);
    return agentErrorEvents({ message: text, text: message, ...(status !== undefined ? { status } : {}), ...(name !== undefined ? { code: name } : {}), now: this.now() });
  }
}
