// A stand-in for the Anthropic Messages API on 127.0.0.1, for the real Claude Code CLI (pointed at
// it with ANTHROPIC_BASE_URL). The main agent's requests (those offering the Bash tool) follow the
// scenario named by the marker in the conversation; everything else Claude Code asks on the side
// (titles, summaries, token counts) gets a short answer without usage, so that the tokens the
// stand-in reported are exactly what the scenario's turns used.
import type { ServerResponse } from 'node:http';
import { messageEvents, type BlockSpec } from '../executors/anthropic/fake-messages-server.js';
import { scenarioOf, type ModelTurn } from './scenarios.js';
import { json, StandInServer } from './stand-in-server.js';

// Every answer carries a request id, as the real API's do.
const REQUEST_ID = { 'request-id': 'req_stand_in' };

export const TURN_USAGE = { input_tokens: 1000, output_tokens: 50, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300 };

interface Message {
  role?: string;
  content?: unknown;
}

export class AnthropicStandIn extends StandInServer {
  /** When set, every main-agent request is refused with this status and body. */
  refuse: { status: number; body: unknown } | undefined;
  private toolIds = 0;

  static start(): Promise<AnthropicStandIn> {
    return new AnthropicStandIn().listen();
  }

  protected handle(path: string, raw: string, res: ServerResponse): void {
    if (path.endsWith('/count_tokens')) return json(res, { input_tokens: 100 }, 200, REQUEST_ID);
    if (!path.endsWith('/v1/messages')) return json(res, { type: 'error', error: { type: 'not_found_error', message: `stand-in: no ${path}` } }, 404, REQUEST_ID);
    let body: { messages?: Message[]; tools?: { name?: string }[]; stream?: boolean };
    try {
      body = JSON.parse(raw);
    } catch {
      return json(res, { type: 'error', error: { type: 'invalid_request_error', message: 'not JSON' } }, 400, REQUEST_ID);
    }
    const mainAgent = (body.tools ?? []).some((t) => t.name === 'Bash');
    const scenario = mainAgent ? scenarioOf(raw) : undefined;
    if (mainAgent && this.refuse) return json(res, this.refuse.body, this.refuse.status, REQUEST_ID);
    let blocks: BlockSpec[];
    let usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    let stopReason = 'end_turn';
    if (scenario) {
      const turn = (body.messages ?? []).filter((m) => m.role === 'assistant').length;
      this.served.push({ scenario: scenario.name, turn, body: raw });
      const answer: ModelTurn = scenario.next({ turn, body: raw });
      blocks = [];
      if (answer.text) blocks.push({ type: 'text', deltas: [answer.text] });
      if (answer.shell) {
        blocks.push({ type: 'tool_use', id: `toolu_stand_in_${++this.toolIds}`, name: 'Bash', input: { command: answer.shell, description: 'scenario step' } });
        stopReason = 'tool_use';
      }
      usage = TURN_USAGE;
      this.reported.input += usage.input_tokens;
      this.reported.output += usage.output_tokens;
      this.reported.cacheRead += usage.cache_read_input_tokens;
      this.reported.cacheWrite += usage.cache_creation_input_tokens;
    } else {
      blocks = [{ type: 'text', deltas: [mainAgent ? 'stand-in: no scenario marker in this conversation' : 'ok'] }];
    }
    const events = messageEvents({ blocks, stopReason, usage, model: 'claude-sonnet-4-5' });
    if (body.stream !== true) return json(res, assemble(events), 200, REQUEST_ID);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...REQUEST_ID });
    for (const e of events) res.write(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
    res.end();
  }
}

/** The non-streaming form of a message: what the SSE events add up to. */
function assemble(events: ReturnType<typeof messageEvents>): unknown {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const start = (events[0]!.data as any).message;
  const content: unknown[] = [];
  let text = '';
  for (const e of events) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const d = e.data as any;
    if (d.type === 'content_block_delta' && d.delta.type === 'text_delta') text += d.delta.text;
  }
  content.push({ type: 'text', text });
  return { ...start, content, stop_reason: 'end_turn' };
}
