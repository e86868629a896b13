// Decodes `claude -p --output-format stream-json --verbose` (docs/agents.md). Only the agent's own
// words become text for the parser: text blocks of top-level `assistant` messages from a model.
// Tool inputs, tool results (`user` events), thinking, what subagents say (messages with a
// parent_tool_use_id) and Claude Code's synthetic messages (model `<synthetic>`: its own API-error
// notices) are logged but never read for signals.
// The session id is taken from the `system` init event as well as the final `result`, so an
// iteration stopped before its result can still be continued; each id is reported once.
//
// Tokens: the `result` carries `modelUsage` (every model the session used, subagents included) and
// `usage` (the main agent only); the first wins when present. When no `result` arrives (the agent
// was stopped or died), the per-message usage of the assistant events is reported instead, marked
// as an estimate: input and cache counts are right there, output is only a placeholder.
//
// The same decoder reads Claude-compatible streams of other agents (Qwen Code, Amp), named by
// `format` and `agent` in what it reports. Qwen Code's input_tokens include the cache reads
// (it speaks OpenAI-compatible APIs, where prompt tokens do): they are taken out.
import type { ExecutorEvent, TokenUsage } from '../types.js';
import { addUsage, usageSince, ZERO_USAGE } from '../types.js';
import { agentErrorEvents, FATAL_STATUSES } from './agent-error.js';
import type { StreamDecoder } from './stream-decoder.js';
import {
  ERROR_MAX,
  WARNING_MAX,
  asArray,
  asCost,
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

/** Claude Code's own notices are written as assistant messages of this model. */
const SYNTHETIC_MODEL = '<synthetic>';

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

/** `cacheInInput`: the agent's input_tokens include the cache reads (Qwen Code's do; Claude Code's do not). */
function tokensOf(usage: JsonObject, cacheInInput = false): TokenUsage {
  const input = asCount(usage.input_tokens);
  const cacheRead = asCount(usage.cache_read_input_tokens);
  return {
    input: cacheInInput ? Math.max(0, input - cacheRead) : input,
    output: asCount(usage.output_tokens),
    cacheRead,
    cacheWrite: asCount(usage.cache_creation_input_tokens),
  };
}

/** Sum over `modelUsage` ({ model: { inputTokens, … } }); undefined when it lists no model. */
function modelUsageTokens(value: unknown, cacheInInput = false): TokenUsage | undefined {
  const models = asObject(value);
  if (!models) return undefined;
  let total: TokenUsage | undefined;
  for (const entry of Object.values(models)) {
    const m = asObject(entry);
    if (!m) continue;
    const cacheRead = asCount(m.cacheReadInputTokens);
    total = addUsage(total ?? ZERO_USAGE, {
      input: cacheInInput ? Math.max(0, asCount(m.inputTokens) - cacheRead) : asCount(m.inputTokens),
      output: asCount(m.outputTokens),
      cacheRead,
      cacheWrite: asCount(m.cacheCreationInputTokens),
    });
  }
  return total;
}

export class ClaudeStreamDecoder implements StreamDecoder {
  /** tool_use id → what was called, to name the tool when its result comes back. */
  private readonly tools = new Map<string, { name: string; summary: string }>();
  /** Per-message usage of top-level assistant messages (one message spans several events). */
  private readonly messageUsage = new Map<string, TokenUsage>();
  private session: string | undefined;
  private resultSeen = false;

  constructor(
    readonly format: string = 'claude-json',
    private readonly agent: string = 'claude',
    /** The agent's input_tokens include its cache reads (Qwen Code, which speaks OpenAI-compatible APIs). */
    private readonly cacheInInput = false,
    /**
     * Present when the agent's `result` holds the session's running total rather than this run's
     * (Qwen Code after `--resume`): session id → the last total, kept across iterations.
     */
    private readonly sessionTotals?: Map<string, TokenUsage>,
    /** The loop's clock, against which "resets 3am" is read. */
    private readonly now: () => number = Date.now,
  ) {}

  decode(event: JsonObject): ExecutorEvent[] {
    switch (event.type) {
      case 'system':
        return this.system(event);
      case 'assistant':
        return this.assistant(event);
      case 'user':
        return this.toolResults(event);
      case 'result':
        return this.result(event);
      case 'rate_limit_event':
        return this.rateLimit(event);
      default:
        return [];
    }
  }

  end(): ExecutorEvent[] {
    if (this.resultSeen || this.messageUsage.size === 0) return [];
    let tokens: TokenUsage = { ...ZERO_USAGE };
    for (const usage of this.messageUsage.values()) tokens = addUsage(tokens, usage);
    this.messageUsage.clear();
    return [{ type: 'usage', tokens, costUsd: null, estimate: true }];
  }

  private sessionEvent(value: unknown): ExecutorEvent[] {
    const id = asString(value);
    if (id === undefined || id === '' || id === this.session) return [];
    this.session = id;
    return [{ type: 'session', id }];
  }

  private system(event: JsonObject): ExecutorEvent[] {
    const out = this.sessionEvent(event.session_id);
    // Claude Code retries refused requests for minutes; a refused key cannot get better.
    if (event.subtype === 'api_retry') {
      const status = asCount(event.error_status);
      if (FATAL_STATUSES.has(status)) {
        out.push({
          type: 'error',
          status,
          fatal: true,
          message: bounded(`${this.agent}: the API refused the request (HTTP ${status}${asString(event.error) ? `, ${asString(event.error)}` : ''}); check the API key and its permissions`, WARNING_MAX),
        });
      }
    }
    return out;
  }

  private rateLimit(event: JsonObject): ExecutorEvent[] {
    const info = asObject(event.rate_limit_info);
    if (!info || info.status !== 'rejected') return [];
    const resets = info.resetsAt;
    const kind = asString(info.rateLimitType);
    const out: ExecutorEvent = {
      type: 'limit',
      kind: 'usage',
      message: `${this.agent}: usage limit reached${kind ? ` (${kind})` : ''}`,
    };
    if (typeof resets === 'number' && Number.isFinite(resets) && resets > 0) out.resetsAt = resets < 1e12 ? resets * 1000 : resets;
    return [out];
  }

  private assistant(event: JsonObject): ExecutorEvent[] {
    const fromSubagent = asString(event.parent_tool_use_id) !== undefined;
    const message = asObject(event.message);
    const synthetic = message?.model === SYNTHETIC_MODEL;
    const out: ExecutorEvent[] = [];
    // Claude Code speaking for itself (an API error it gave up on): never the agent's words. The
    // `result` that follows carries the same error with its HTTP status and is reported from there.
    if (synthetic) return out;
    const id = asString(message?.id);
    const usage = asObject(message?.usage);
    if (!fromSubagent && id !== undefined && usage) this.messageUsage.set(id, tokensOf(usage, this.cacheInInput));
    let first = true;
    for (const raw of asArray(message?.content)) {
      const block = asObject(raw);
      if (!block) continue;
      if (block.type === 'text' && !fromSubagent) {
        const text = asString(block.text);
        if (text) out.push({ type: 'text', stream: 'stdout', chunk: endLine(text), parseOnly: true, ...(first ? { messageStart: true } : {}) });
        if (text) first = false;
      } else if (block.type === 'tool_use') {
        const name = asString(block.name) ?? 'tool';
        const summary = summarizeToolInput(block.input);
        const toolId = asString(block.id);
        if (toolId !== undefined) this.tools.set(toolId, { name, summary });
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

  private turnTokens(reported: TokenUsage, session: string | undefined): TokenUsage {
    if (this.sessionTotals === undefined || session === undefined) return reported;
    const before = this.sessionTotals.get(session);
    this.sessionTotals.set(session, reported);
    return usageSince(reported, before);
  }

  private result(event: JsonObject): ExecutorEvent[] {
    this.resultSeen = true;
    const out: ExecutorEvent[] = [
      {
        type: 'usage',
        tokens: this.turnTokens(modelUsageTokens(event.modelUsage, this.cacheInInput) ?? tokensOf(asObject(event.usage) ?? {}, this.cacheInInput), asString(event.session_id)),
        costUsd: asCost(event.total_cost_usd),
      },
      ...this.sessionEvent(event.session_id),
    ];
    for (const raw of asArray(event.permission_denials)) {
      const denial = asObject(raw);
      if (!denial) continue;
      out.push({ type: 'permission_denied', tool: asString(denial.tool_name) ?? 'tool', summary: summarizeToolInput(denial.tool_input) });
    }
    if (event.is_error === true) {
      const status = typeof event.api_error_status === 'number' ? event.api_error_status : undefined;
      const detail =
        asString(event.result) ??
        asString(asObject(event.error)?.message) ??
        asArray(event.errors).filter((e): e is string => typeof e === 'string').join('; ');
      let message: string;
      if (status !== undefined) {
        message = `${this.agent} reported an API error (HTTP ${status}): ${oneLine(detail, WARNING_MAX - 60)}`;
      } else {
        // Claude Code 2.1.197 reports API errors as subtype "success" with is_error: the subtype says nothing then.
        const subtype = asString(event.subtype);
        const label = subtype && subtype !== 'success' ? ` (${subtype})` : '';
        message = bounded(`${this.agent} reported an error${label}${detail ? `: ${oneLine(detail, WARNING_MAX)}` : ''}`, WARNING_MAX);
      }
      out.push(...agentErrorEvents({ message, text: detail, ...(status !== undefined ? { status } : {}), now: this.now() }));
    }
    return out;
  }
}
