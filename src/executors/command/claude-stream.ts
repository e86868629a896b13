// Decodes `claude -p --output-format stream-json --verbose`. Only the agent's own words become
// text for the parser: text blocks of top-level `assistant` messages. Tool inputs, tool results
// (`user` events), thinking, and what subagents say (messages with a parent_tool_use_id) are
// logged but never read for signals: they are file contents and command output, not the agent.
// The session id is taken from the `system` init event as well as the final `result`, so an
// iteration stopped before its result can still be continued; each id is reported once.
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

/** Input fields that say what a tool call does, most telling first. */
const SUMMARY_FIELDS = ['command', 'file_path', 'notebook_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt'];

export function summarizeToolInput(input: unknown): string {
  const fields = asObject(input);
  if (!fields) return '';
  for (const key of SUMMARY_FIELDS) {
    const value = asString(fields[key]);
    if (value !== undefined && value.trim() !== '') return oneLine(value);
  }
  try {
    return oneLine(JSON.stringify(fields));
  } catch {
    return '';
  }
}

/** tool_result content: a string, or blocks of which the text ones are kept. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  const texts: string[] = [];
  for (const block of asArray(content)) {
    const text = asString(asObject(block)?.text);
    if (text !== undefined) texts.push(text);
  }
  return texts.join('\n');
}

export class ClaudeStreamDecoder implements StreamDecoder {
  readonly format = 'claude-json';
  /** tool_use id → what was called, to name the tool when its result comes back as an error. */
  private readonly tools = new Map<string, { name: string; summary: string }>();
  private session: string | undefined;

  decode(event: JsonObject): ExecutorEvent[] {
    switch (event.type) {
      case 'system':
        return this.sessionEvent(event.session_id);
      case 'assistant':
        return this.assistant(event);
      case 'user':
        return this.toolResults(event);
      case 'result':
        return this.result(event);
      default:
        return [];
    }
  }

  private sessionEvent(value: unknown): ExecutorEvent[] {
    const id = asString(value);
    if (id === undefined || id === '' || id === this.session) return [];
    this.session = id;
    return [{ type: 'session', id }];
  }

  private assistant(event: JsonObject): ExecutorEvent[] {
    const fromSubagent = asString(event.parent_tool_use_id) !== undefined;
    const out: ExecutorEvent[] = [];
    for (const raw of asArray(asObject(event.message)?.content)) {
      const block = asObject(raw);
      if (!block) continue;
      if (block.type === 'text' && !fromSubagent) {
        const text = asString(block.text);
        if (text) out.push({ type: 'text', stream: 'stdout', chunk: endLine(text), parseOnly: true });
      } else if (block.type === 'tool_use') {
        const name = asString(block.name) ?? 'tool';
        const summary = summarizeToolInput(block.input);
        const id = asString(block.id);
        if (id !== undefined) this.tools.set(id, { name, summary });
        out.push({ type: 'tool', name, summary, phase: 'call' });
      }
    }
    return out;
  }

  private toolResults(event: JsonObject): ExecutorEvent[] {
    const out: ExecutorEvent[] = [];
    for (const raw of asArray(asObject(event.message)?.content)) {
      const block = asObject(raw);
      if (!block || block.type !== 'tool_result') continue;
      const id = asString(block.tool_use_id);
      const call = id === undefined ? undefined : this.tools.get(id);
      if (id !== undefined) this.tools.delete(id);
      const finished: ExecutorEvent = { type: 'tool', name: call?.name ?? 'tool', summary: call?.summary ?? '' };
      // A successful result matters too: it breaks a run of identical errors.
      if (block.is_error === true) finished.error = bounded(contentText(block.content), ERROR_MAX);
      out.push(finished);
    }
    return out;
  }

  private result(event: JsonObject): ExecutorEvent[] {
    const usage = asObject(event.usage) ?? {};
    const cost = event.total_cost_usd;
    const out: ExecutorEvent[] = [
      {
        type: 'usage',
        tokens: {
          input: asCount(usage.input_tokens),
          output: asCount(usage.output_tokens),
          cacheRead: asCount(usage.cache_read_input_tokens),
          cacheWrite: asCount(usage.cache_creation_input_tokens),
        },
        costUsd: typeof cost === 'number' && Number.isFinite(cost) && cost >= 0 ? cost : null,
      },
      ...this.sessionEvent(event.session_id),
    ];
    for (const raw of asArray(event.permission_denials)) {
      const denial = asObject(raw);
      if (!denial) continue;
      out.push({ type: 'permission_denied', tool: asString(denial.tool_name) ?? 'tool', summary: summarizeToolInput(denial.tool_input) });
    }
    if (event.is_error === true) {
      const subtype = asString(event.subtype) ?? 'error';
      const detail =
        asString(event.result) ?? asArray(event.errors).filter((e): e is string => typeof e === 'string').join('; ');
      out.push({
        type: 'warning',
        message: bounded(`claude reported an error (${subtype})${detail ? `: ${detail}` : ''}`, WARNING_MAX),
      });
    }
    return out;
  }
}
