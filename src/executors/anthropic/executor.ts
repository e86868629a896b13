// The `anthropic` executor: the Messages API through the official SDK, with bash and the text
// editor run by ralph in the working directory. One run() = one iteration = the tool loop until
// the model ends its turn. The executor keeps the conversation between run() calls; it reports
// what happened (text, tools, usage, the end) and never decides anything.
import type { CommandSandbox } from '../../sandbox/types.js';
import Anthropic from '@anthropic-ai/sdk';
import type { ContentBlock, Message, ToolResultBlockParam, Usage } from '@anthropic-ai/sdk/resources/messages/messages';
import { DEFAULTS } from '../../contract.js';
import type { Executor, ExecutorEvent, ExecutorRunOptions, TokenUsage } from '../types.js';
import { classifyFailure } from './api-errors.js';
import { limitAwareFetch } from './limit-fetch.js';
import { Conversation, buildRequest, type RequestSettings } from './conversation.js';
import { costOf, DEFAULT_MODEL } from './models.js';
import { CONTINUE_AFTER_MAX_TOKENS, CONTINUE_ITERATION, INTERRUPTED_TOOL } from './notes.js';
import { createRedactor, type Redactor } from './redact.js';
import { streamRequest } from './stream-request.js';
import { TOOL_DEFINITIONS, ToolRunner } from './tools/tool-runner.js';

export interface AnthropicExecutorOptions {
  apiKey: string;
  /** Default: ANTHROPIC_BASE_URL, else the public API. */
  baseURL?: string;
  /** Default: DEFAULT_MODEL. */
  model?: string;
  /** The SDK's own retries of 408/409/429/5xx/529 (it honours retry-after). Default 2. */
  maxRetries?: number;
  /** max_tokens of each request. */
  maxTokens?: number;
  /** Per-command timeout of the bash tool. */
  commandTimeoutMs?: number;
  fetch?: typeof fetch;
  /** ralph's sandbox (docs/sandbox.md): the bash tool's shell runs in it, with no network. */
  sandbox?: CommandSandbox;
}

/** The Executor, plus close(): stops the bash session (also done by itself on abort and at exit). */
export interface AnthropicExecutor extends Executor {
  close(): Promise<void>;
}

export const DEFAULT_MAX_TOKENS = 32_000;
/** max_tokens / pause_turn continuations in a row before the iteration gives up. */
const MAX_AUTO_CONTINUATIONS = 8;

function tokensOf(usage: Usage): TokenUsage {
  return {
    input: usage.input_tokens ?? 0,
    output: usage.output_tokens ?? 0,
    cacheRead: usage.cache_read_input_tokens ?? 0,
    cacheWrite: usage.cache_creation_input_tokens ?? 0,
  };
}

/** What survives of a reply cut by max_tokens: text and complete thinking (a cut tool call cannot run). */
function keepAfterCut(content: ContentBlock[]): ContentBlock[] {
  return content.filter(
    (b) =>
      (b.type === 'text' && b.text !== '') ||
      (b.type === 'thinking' && b.signature !== '') ||
      b.type === 'redacted_thinking',
  );
}

/** The SDK's own warnings become `warning` events (nothing but the UI prints). */
function sdkLogger(redactor: Redactor, sink: string[]): Anthropic['logger'] {
  const keep = (level: string) => (message: string, ...rest: unknown[]) => {
    const extra = rest.map((r) => (r instanceof Error ? r.message : typeof r === 'string' ? r : '')).filter(Boolean);
    sink.push(redactor.scrub(`Anthropic SDK ${level}: ${[message, ...extra].join(' ')}`));
  };
  return { error: keep('error'), warn: keep('warning'), info: () => {}, debug: () => {} };
}

export function createAnthropicExecutor(options: AnthropicExecutorOptions): AnthropicExecutor {
  const redactor = createRedactor(options.apiKey);
  const model = options.model ?? DEFAULT_MODEL;
  const maxRetries = options.maxRetries ?? DEFAULTS.maxRetries;
  const sdkWarnings: string[] = [];
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
    maxRetries,
    fetch: limitAwareFetch(options.fetch ?? globalThis.fetch),
    logger: sdkLogger(redactor, sdkWarnings),
  });
  const settings: RequestSettings = {
    model,
    maxTokens: options.maxTokens ?? DEFAULT_MAX_TOKENS,
    tools: TOOL_DEFINITIONS,
  };

  let conversation: Conversation | null = null;
  let tools: ToolRunner | null = null;
  let toolsCwd: string | null = null;
  let warnedUnpriced = false;

  async function newTools(run: ExecutorRunOptions): Promise<ToolRunner> {
    await tools?.close();
    toolsCwd = run.cwd;
    const shell = options.sandbox ? await options.sandbox.wrapArgv(['bash', '--noprofile', '--norc']) : undefined;
    tools = new ToolRunner({
      ...(shell ? { shell } : {}),
      cwd: run.cwd,
      env: run.env,
      ...(run.hideEnv ? { hideEnv: run.hideEnv } : {}),
      apiKey: options.apiKey,
      redactor,
      ...(options.commandTimeoutMs !== undefined ? { commandTimeoutMs: options.commandTimeoutMs } : {}),
    });
    return tools;
  }

  async function startConversation(run: ExecutorRunOptions): Promise<{ conv: Conversation; tools: ToolRunner }> {
    conversation = Conversation.start(run.prompt);
    return { conv: conversation, tools: await newTools(run) };
  }

  function* drainWarnings(): Generator<ExecutorEvent> {
    for (const message of sdkWarnings.splice(0)) yield { type: 'warning', message };
  }

  function* usageEvents(usage: Usage): Generator<ExecutorEvent> {
    const tokens = tokensOf(usage);
    const costUsd = costOf(model, tokens);
    if (costUsd === null && !warnedUnpriced) {
      warnedUnpriced = true;
      yield {
        type: 'warning',
        message: `no price is known for model ${model}: its cost is reported as unknown, so --max-cost cannot limit this run`,
      };
    }
    yield { type: 'usage', tokens, costUsd, contextTokens: tokens.input + tokens.cacheRead + tokens.cacheWrite };
  }

  async function* runTools(
    message: Message,
    conv: Conversation,
    runner: ToolRunner,
    signal: AbortSignal,
  ): AsyncGenerator<ExecutorEvent> {
    const results: ToolResultBlockParam[] = [];
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      if (signal.aborted) {
        results.push({ type: 'tool_result', tool_use_id: block.id, content: INTERRUPTED_TOOL, is_error: true });
        continue;
      }
      const outcome = await runner.run({ id: block.id, name: block.name, input: block.input }, signal);
      yield { type: 'tool', name: block.name, summary: outcome.summary, ...(outcome.error !== undefined ? { error: outcome.error } : {}) };
      // Tool output is for the transcript only: never `text`, so it is never read for signals.
      yield { type: 'log', stream: 'stdout', chunk: `[${block.name}] ${outcome.summary}\n${outcome.content}${outcome.content.endsWith('\n') ? '' : '\n'}` };
      results.push({
        type: 'tool_result',
        tool_use_id: block.id,
        content: outcome.content,
        ...(outcome.isError ? { is_error: true } : {}),
      });
    }
    conv.appendToolResults(results);
  }

  /** Whatever goes wrong inside, the iteration ends with an `exit` event, never a throw. */
  async function* run(runOptions: ExecutorRunOptions): AsyncGenerator<ExecutorEvent> {
    try {
      yield* iterate(runOptions);
    } catch (error) {
      // A bug, not an API failure (those are classified in iterate): still no crash of the loop.
      await tools?.close();
      conversation = null;
      const message = error instanceof Error ? error.message : String(error);
      yield { type: 'exit', code: 1, error: redactor.scrub(`the anthropic executor failed: ${message}`) };
    }
  }

  async function* iterate(runOptions: ExecutorRunOptions): AsyncGenerator<ExecutorEvent> {
    const { prompt, signal } = runOptions;
    let conv: Conversation;
    let runner: ToolRunner;
    if (runOptions.fresh || conversation === null || tools === null) {
      ({ conv, tools: runner } = await startConversation(runOptions));
    } else {
      conv = conversation;
      runner = toolsCwd === runOptions.cwd ? tools : await newTools(runOptions);
      runner.updateEnv(runOptions.env);
      conv.appendUserText(prompt.message.trim() !== '' ? prompt.message : CONTINUE_ITERATION);
    }

    const aborted = async function* (): AsyncGenerator<ExecutorEvent> {
      await runner.close();
      yield { type: 'exit', code: null, signal: 'aborted' };
    };

    let contextResets = 0;
    let continuations = 0;
    for (;;) {
      if (signal.aborted) return yield* aborted();
      let message: Message;
      try {
        message = yield* streamRequest(client, buildRequest(conv, settings), signal, redactor);
      } catch (error) {
        yield* drainWarnings();
        const failure = classifyFailure(error, signal, maxRetries);
        switch (failure.kind) {
          case 'aborted':
            return yield* aborted();
          case 'auth':
            yield { type: 'exit', code: 1, fatal: true, error: redactor.scrub(failure.message) };
            return;
          case 'context':
            if (contextResets++ === 0) {
              yield { type: 'warning', message: `${failure.message}: starting a fresh conversation with the full prompt` };
              ({ conv, tools: runner } = await startConversation(runOptions));
              continue;
            }
            yield { type: 'exit', code: 1, error: `${failure.message}, even in a fresh conversation` };
            return;
          case 'failed':
            yield { type: 'exit', code: 1, error: redactor.scrub(failure.message) };
            return;
          case 'limit': {
            const message = redactor.scrub(failure.message);
            yield { type: 'limit', kind: failure.limit, message, ...(failure.retryAfterMs !== undefined ? { retryAfterMs: failure.retryAfterMs } : {}) };
            yield { type: 'exit', code: 1, error: message };
            return;
          }
          default: {
            const never: never = failure;
            return never;
          }
        }
      }
      yield* drainWarnings();
      yield* usageEvents(message.usage);

      const stop = message.stop_reason;
      if (stop === 'tool_use' && message.content.some((b) => b.type === 'tool_use')) {
        continuations = 0;
        conv.appendAssistant(message.content);
        yield* runTools(message, conv, runner, signal);
        continue;
      }
      if (stop === 'max_tokens' || stop === 'pause_turn') {
        if (++continuations > MAX_AUTO_CONTINUATIONS) {
          yield { type: 'exit', code: 1, error: `the model stopped with ${stop} ${MAX_AUTO_CONTINUATIONS} times in a row` };
          return;
        }
        if (stop === 'pause_turn') {
          // The API resumes a paused turn when it is sent back as the last message.
          conv.appendAssistant(message.content);
        } else {
          conv.appendAssistant(keepAfterCut(message.content));
          conv.appendUserText(CONTINUE_AFTER_MAX_TOKENS);
        }
        continue;
      }
      if (stop === 'model_context_window_exceeded') {
        if (contextResets++ === 0) {
          yield { type: 'warning', message: 'the conversation filled the model\'s context window: starting a fresh conversation with the full prompt' };
          ({ conv, tools: runner } = await startConversation(runOptions));
          continue;
        }
        yield { type: 'exit', code: 1, error: 'the model\'s context window was exceeded even in a fresh conversation' };
        return;
      }
      if (stop === 'refusal') {
        // Continuing after a refusal tends to repeat it: the next iteration starts afresh.
        conversation = null;
        yield { type: 'warning', message: 'the model refused to continue (stop_reason: refusal); the next iteration starts a fresh conversation' };
        yield { type: 'exit', code: 0 };
        return;
      }
      conv.appendAssistant(message.content);
      if (stop !== 'end_turn' && stop !== 'stop_sequence' && stop !== 'tool_use' && stop !== null) {
        yield { type: 'warning', message: `the model stopped for an unexpected reason (${String(stop)}); the iteration ends here` };
      }
      yield { type: 'exit', code: 0 };
      return;
    }
  }

  return {
    name: 'anthropic',
    run,
    keptProcesses() {
      return tools?.shellPids ?? [];
    },
    async close() {
      conversation = null;
      await tools?.close();
      tools = null;
    },
  };
}
