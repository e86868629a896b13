// A stand-in for the OpenAI Responses API (SSE) on 127.0.0.1, for the real Codex CLI (pointed at it
// by a model provider in CODEX_HOME/config.toml with wire_api = "responses"). Requests follow the
// scenario named by the marker in the conversation; a shell step becomes a call of Codex's
// `exec_command` tool. Every response reports TURN_USAGE, summed in `reported`.
import type { ServerResponse } from 'node:http';
import { scenarioOf, type ModelTurn } from './scenarios.js';
import { json, StandInServer } from './stand-in-server.js';

export const TURN_USAGE = { input_tokens: 1500, cached_tokens: 1000, output_tokens: 60 };

interface Item {
  type?: string;
  role?: string;
}

export class ResponsesStandIn extends StandInServer {
  /** When set, every request is refused with this status and body. */
  refuse: { status: number; body: unknown } | undefined;
  private ids = 0;

  static start(): Promise<ResponsesStandIn> {
    return new ResponsesStandIn().listen('/v1');
  }

  protected handle(path: string, raw: string, res: ServerResponse): void {
    if (!path.endsWith('/responses')) return json(res, { error: { message: `stand-in: no ${path}` } }, 404);
    if (this.refuse) return json(res, this.refuse.body, this.refuse.status);
    if (this.refuseForLimit(res)) return;
    let body: { input?: Item[] };
    try {
      body = JSON.parse(raw);
    } catch {
      res.writeHead(400).end();
      return;
    }
    const input = body.input ?? [];
    // A model turn is an assistant message or a tool call; a message followed by a call is one turn.
    let turn = 0;
    input.forEach((item, i) => {
      if (item.type === 'function_call') turn++;
      else if (item.type === 'message' && item.role === 'assistant' && input[i + 1]?.type !== 'function_call') turn++;
    });
    const scenario = scenarioOf(raw);
    const answer: ModelTurn = scenario ? scenario.next({ turn, body: raw }) : { text: 'stand-in: no scenario marker in this conversation' };
    if (scenario) this.served.push({ scenario: scenario.name, turn, body: raw });
    const id = `resp_stand_in_${++this.ids}`;
    const events: unknown[] = [{ type: 'response.created', response: { id, status: 'in_progress', output: [] } }];
    if (answer.text) {
      const item = { type: 'message', role: 'assistant', id: `msg_${this.ids}`, content: [{ type: 'output_text', text: answer.text, annotations: [] }] };
      events.push({ type: 'response.output_item.added', output_index: 0, item: { ...item, content: [] } });
      events.push({ type: 'response.output_text.delta', item_id: item.id, output_index: 0, content_index: 0, delta: answer.text });
      events.push({ type: 'response.output_item.done', output_index: 0, item });
    }
    if (answer.shell) {
      const item = { type: 'function_call', id: `fc_${this.ids}`, call_id: `call_${this.ids}`, name: 'exec_command', arguments: JSON.stringify({ cmd: answer.shell }) };
      events.push({ type: 'response.output_item.added', output_index: 1, item });
      events.push({ type: 'response.output_item.done', output_index: 1, item });
    }
    const u = TURN_USAGE;
    if (scenario) {
      this.reported.input += u.input_tokens - u.cached_tokens;
      this.reported.cacheRead += u.cached_tokens;
      this.reported.output += u.output_tokens;
    }
    const usage = scenario
      ? {
          input_tokens: u.input_tokens,
          input_tokens_details: { cached_tokens: u.cached_tokens },
          output_tokens: u.output_tokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: u.input_tokens + u.output_tokens,
        }
      : { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 };
    events.push({ type: 'response.completed', response: { id, status: 'completed', usage } });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const e of events) res.write(`event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`);
    res.end();
  }
}
