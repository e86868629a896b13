// A stand-in for an OpenAI-compatible Chat Completions API (streamed, SSE) on 127.0.0.1, for agent
// CLIs that can be pointed at any such provider (Qwen Code with OPENAI_BASE_URL; opencode with an
// openai-compatible provider). The main agent's requests (those offering a shell tool) follow the
// scenario named by the marker in the conversation; a shell step becomes a call of the CLI's shell
// tool. Other requests get a short answer without usage.
import type { ServerResponse } from 'node:http';
import { scenarioOf, type ModelTurn } from './scenarios.js';
import { json, StandInServer } from './stand-in-server.js';

export const TURN_USAGE = { prompt_tokens: 1500, cached_tokens: 1000, completion_tokens: 60 };

interface ChatTool {
  function?: { name?: string; parameters?: { properties?: Record<string, unknown> } };
}

export class ChatStandIn extends StandInServer {
  private ids = 0;

  private constructor(
    /** The names a shell tool goes by in the CLIs this serves. */
    private readonly shellTools: string[],
  ) {
    super();
  }

  static start(shellTools: string[]): Promise<ChatStandIn> {
    return new ChatStandIn(shellTools).listen('/v1');
  }

  protected handle(path: string, raw: string, res: ServerResponse): void {
    if (path.endsWith('/models')) return json(res, { object: 'list', data: [{ id: 'stand-in-model', object: 'model' }] });
    if (!path.endsWith('/chat/completions')) return json(res, { error: { message: `stand-in: no ${path}` } }, 404);
    let body: { messages?: { role?: string; tool_calls?: unknown[] }[]; tools?: ChatTool[]; stream?: boolean };
    try {
      body = JSON.parse(raw);
    } catch {
      return json(res, { error: { message: 'not JSON' } }, 400);
    }
    const shell = (body.tools ?? []).find((t) => this.shellTools.includes(t.function?.name ?? ''));
    const scenario = shell ? scenarioOf(raw) : undefined;
    const id = `chatcmpl-${++this.ids}`;
    let text: string;
    let call: { name: string; args: string } | undefined;
    let usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, prompt_tokens_details: { cached_tokens: 0 } };
    if (scenario) {
      const turn = (body.messages ?? []).filter((m) => m.role === 'assistant').length;
      this.served.push({ scenario: scenario.name, turn, body: raw });
      const answer: ModelTurn = scenario.next({ turn, body: raw });
      text = answer.text ?? '';
      if (answer.shell) {
        const props = Object.keys(shell?.function?.parameters?.properties ?? {});
        const args: Record<string, string> = { command: answer.shell };
        if (props.includes('description')) args.description = 'scenario step';
        call = { name: shell!.function!.name!, args: JSON.stringify(args) };
      }
      const u = TURN_USAGE;
      usage = { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens, total_tokens: u.prompt_tokens + u.completion_tokens, prompt_tokens_details: { cached_tokens: u.cached_tokens } };
      this.reported.input += u.prompt_tokens - u.cached_tokens;
      this.reported.cacheRead += u.cached_tokens;
      this.reported.output += u.completion_tokens;
    } else {
      text = shell ? 'stand-in: no scenario marker in this conversation' : 'ok';
    }
    const finish = call ? 'tool_calls' : 'stop';
    if (body.stream !== true) {
      const message: Record<string, unknown> = { role: 'assistant', content: text || null };
      if (call) message.tool_calls = [{ id: `call_${this.ids}`, type: 'function', function: { name: call.name, arguments: call.args } }];
      return json(res, { id, object: 'chat.completion', created: 1, model: 'stand-in-model', choices: [{ index: 0, message, finish_reason: finish }], usage });
    }
    const chunk = (delta: unknown, finishReason: string | null, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: 'stand-in-model', choices: [{ index: 0, delta, finish_reason: finishReason }], ...extra })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(chunk({ role: 'assistant', content: '' }, null));
    if (text) res.write(chunk({ content: text }, null));
    if (call) res.write(chunk({ tool_calls: [{ index: 0, id: `call_${this.ids}`, type: 'function', function: { name: call.name, arguments: call.args } }] }, null));
    res.write(chunk({}, finish));
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model: 'stand-in-model', choices: [], usage })}\n\n`);
    res.write('data: [DONE]\n\n');
    res.end();
  }
}
