// What ralph knows about each stream format (docs/agents.md): how its stdout is decoded, and how
// the agent is asked to stop. The decoder of a format is made per iteration; what must outlive an
// iteration (Codex's and Qwen Code's running token totals per session) is kept by the executor
// and handed in.
import type { StreamFormat } from '../../loop/types.js';
import { ClaudeStreamDecoder } from './claude-stream.js';
import { CodexStreamDecoder, type CodexLedger } from './codex-stream.js';
import { CursorStreamDecoder } from './cursor-stream.js';
import { GeminiStreamDecoder } from './gemini-stream.js';
import { OpencodeStreamDecoder } from './opencode-stream.js';
import type { StreamDecoder } from './stream-decoder.js';
import type { TokenUsage } from '../types.js';

/** What lives across the iterations of one executor. */
export interface FormatMemory {
  codexTotals: CodexLedger;
  /** Qwen Code's running token totals per session (its `result` after `--resume` counts the whole session). */
  qwenTotals: Map<string, TokenUsage>;
  /** Notices the agent repeats every run of it (Codex's "Model metadata … not found"): shown once per run. */
  notices: Set<string>;
}

export function newFormatMemory(): FormatMemory {
  return { codexTotals: new Map(), qwenTotals: new Map(), notices: new Set() };
}

/** The decoder of a JSON format; undefined for text. */
export function decoderFor(format: StreamFormat, memory: FormatMemory, now: () => number = Date.now): StreamDecoder | undefined {
  switch (format) {
    case 'text':
      return undefined;
    case 'claude-json':
      return new ClaudeStreamDecoder('claude-json', 'claude', false, undefined, now);
    case 'qwen-json':
      return new ClaudeStreamDecoder('qwen-json', 'qwen', true, memory.qwenTotals, now);
    case 'amp-json':
      return new ClaudeStreamDecoder('amp-json', 'amp', false, undefined, now);
    case 'cursor-json':
      return new CursorStreamDecoder(now);
    case 'codex-json':
      return new CodexStreamDecoder(memory.codexTotals, now, memory.notices);
    case 'gemini-json':
      return new GeminiStreamDecoder(now);
    case 'opencode-json':
      return new OpencodeStreamDecoder(now);
    default: {
      const unknown: never = format;
      throw new Error(`unknown stream format: ${String(unknown)}`);
    }
  }
}

/**
 * How to stop the agent when ralph must: the first signal, and how long to wait for the agent to
 * exit by itself before TERM (then KILL). Claude Code on SIGINT stops its tool, writes its final
 * `result` with the cost and exits; on SIGTERM it may kill only its running command and carry on.
 */
export function stopPlan(format: StreamFormat): { first: 'SIGINT' | 'SIGTERM'; waitMs: number } {
  switch (format) {
    case 'claude-json':
    case 'qwen-json':
      return { first: 'SIGINT', waitMs: 10_000 };
    default:
      return { first: 'SIGTERM', waitMs: 0 };
  }
}
