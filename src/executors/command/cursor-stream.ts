// Decodes Cursor's agent CLI `--output-format stream-json` (docs/agents.md): Claude Code's shapes
// (system init with session_id, assistant messages, result) plus `tool_call` events with subtype
// started|completed, a call_id, and the call under one key named for the tool
// (`{"tool_call":{"shellToolCall":{"args":{…},"result":{…}}}}`). Cursor reports no tokens or cost.
import type { ExecutorEvent } from '../types.js';
import { ClaudeStreamDecoder, summarizeToolInput } from './claude-stream.js';
import { ERROR_MAX, asObject, bounded, oneLine, type JsonObject } from './untrusted.js';

export class CursorStreamDecoder extends ClaudeStreamDecoder {
  constructor(now: () => number = Date.now) {
    super('cursor-json', 'cursor-agent', false, undefined, now);
  }

  override decode(event: JsonObject): ExecutorEvent[] {
    if (event.type !== 'tool_call') return super.decode(event);
    const call = asObject(event.tool_call) ?? {};
    const key = Object.keys(call)[0];
    const body = key === undefined ? {} : (asObject(call[key]) ?? {});
    const name = key === undefined ? 'tool' : key.replace(/ToolCall$/, '');
    const summary = summarizeToolInput(body.args);
    if (event.subtype === 'started') return [{ type: 'tool', name, summary, phase: 'call' }];
    if (event.subtype !== 'completed') return [];
    const result = asObject(body.result) ?? {};
    const failure = asObject(result.failure) ?? asObject(result.error) ?? asObject(result.rejected);
    const tool: ExecutorEvent = { type: 'tool', name, summary };
    if (failure) tool.error = bounded(oneLine(JSON.stringify(failure), ERROR_MAX), ERROR_MAX);
    return [tool];
  }
}
