// Scenario steps that print the JSON events of `claude -p --output-format stream-json --verbose`
// and `codex exec --json`, one event a line, as the real CLIs do.
import type { Step } from './workspace.js';

const line = (event: unknown): Step => ({ say: JSON.stringify(event) });

export const claude = {
  init: (sessionId: string): Step => line({ type: 'system', subtype: 'init', session_id: sessionId, tools: ['Bash'] }),
  text: (text: string): Step => line({ type: 'assistant', parent_tool_use_id: null, message: { role: 'assistant', content: [{ type: 'text', text }] } }),
  toolUse: (id: string, command: string): Step =>
    line({ type: 'assistant', parent_tool_use_id: null, message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command } }] } }),
  toolResult: (id: string, content: string, isError = false): Step =>
    line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] } }),
  result: (sessionId: string, costUsd: number, extra: Record<string, unknown> = {}): Step =>
    line({
      type: 'result',
      subtype: 'success',
      is_error: false,
      session_id: sessionId,
      total_cost_usd: costUsd,
      usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
      ...extra,
    }),
};

export const codex = {
  thread: (threadId: string): Step => line({ type: 'thread.started', thread_id: threadId }),
  message: (id: string, text: string): Step => line({ type: 'item.completed', item: { id, type: 'agent_message', text } }),
  command: (id: string, command: string, output: string, exitCode = 0): Step =>
    line({ type: 'item.completed', item: { id, type: 'command_execution', command, aggregated_output: output, exit_code: exitCode, status: 'completed' } }),
  turnDone: (): Step => line({ type: 'turn.completed', usage: { input_tokens: 100, cached_input_tokens: 0, output_tokens: 20 } }),
};
