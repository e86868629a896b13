// A real HTTP server on 127.0.0.1 that speaks the Messages API's streaming protocol (SSE), for
// tests that point the real SDK at it through baseURL. Replies are scripted in order; every request
// is recorded (headers and parsed body) so tests can assert on what was sent.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SseEvent {
  event: string;
  data: unknown;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export type Reply =
  | {
      kind: 'stream';
      events: SseEvent[];
      /** Keep the response open after the events, until the client goes away (for abort tests). */
      hang?: boolean;
    }
  | { kind: 'error'; status: number; body: unknown; headers?: Record<string, string> };

export type BlockSpec =
  | { type: 'text'; deltas: string[] }
  | { type: 'tool_use'; id: string; name: string; input: unknown; jsonChunks?: number }
  | { type: 'thinking'; deltas: string[]; signature: string };

export interface UsageSpec {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

export interface TurnSpec {
  blocks: BlockSpec[];
  stopReason: string;
  usage?: UsageSpec;
  model?: string;
}

let messageCounter = 0;

function splitInto(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / parts));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [''];
}

/** The SSE events of one assistant message, as the Messages API streams them. */
export function messageEvents(spec: TurnSpec): SseEvent[] {
  const usage = {
    input_tokens: spec.usage?.input_tokens ?? 10,
    output_tokens: 1,
    cache_creation_input_tokens: spec.usage?.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: spec.usage?.cache_read_input_tokens ?? 0,
  };
  const events: SseEvent[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id: `msg_fake_${++messageCounter}`,
          type: 'message',
          role: 'assistant',
          model: spec.model ?? 'claude-sonnet-5-5',
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage,
        },
      },
    },
  ];
  spec.blocks.forEach((block, index) => {
    if (block.type === 'text') {
      events.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
      for (const text of block.deltas) {
        events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text } } });
      }
    } else if (block.type === 'tool_use') {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } },
      });
      for (const partial_json of splitInto(JSON.stringify(block.input), block.jsonChunks ?? 3)) {
        events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } } });
      }
    } else {
      events.push({
        event: 'content_block_start',
        data: { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } },
      });
      for (const thinking of block.deltas) {
        events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } } });
      }
      events.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } } });
    }
    events.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  events.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: spec.stopReason, stop_sequence: null },
      usage: { output_tokens: spec.usage?.output_tokens ?? 5 },
    },
  });
  events.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return events;
}

/** Reply builders for the common turns. */
export const reply = {
  turn(spec: TurnSpec): Reply {
    return { kind: 'stream', events: messageEvents(spec) };
  },
  text(deltas: string[], stopReason = 'end_turn', usage?: UsageSpec): Reply {
    return reply.turn({ blocks: [{ type: 'text', deltas }], stopReason, ...(usage ? { usage } : {}) });
  },
  tool(id: string, name: string, input: unknown, before?: string): Reply {
    const blocks: BlockSpec[] = before ? [{ type: 'text', deltas: [before] }] : [];
    blocks.push({ type: 'tool_use', id, name, input });
    return reply.turn({ blocks, stopReason: 'tool_use' });
  },
  /** Streams the start of a text block, then never finishes. */
  hang(deltas: string[]): Reply {
    const events = messageEvents({ blocks: [{ type: 'text', deltas }], stopReason: 'end_turn' });
    // message_start, content_block_start, the deltas: then silence.
    return { kind: 'stream', events: events.slice(0, 2 + deltas.length), hang: true };
  },
  error(status: number, type: string, message: string, headers?: Record<string, string>): Reply {
    return { kind: 'error', status, body: { type: 'error', error: { type, message } }, ...(headers ? { headers } : {}) };
  },
};

export class FakeMessagesServer {
  readonly requests: RecordedRequest[] = [];
  private readonly replies: Reply[] = [];
  private readonly hanging = new Set<ServerResponse>();

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeMessagesServer> {
    let self: FakeMessagesServer | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => self!.handle(req.method ?? '', req.url ?? '', req.headers, Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new FakeMessagesServer(server, `http://127.0.0.1:${port}`);
    return self;
  }

  enqueue(...replies: Reply[]): this {
    this.replies.push(...replies);
    return this;
  }

  get pendingReplies(): number {
    return this.replies.length;
  }

  /** Responses kept open by a `hang` reply that the client has not closed yet. */
  get hangingResponses(): number {
    return this.hanging.size;
  }

  private handle(method: string, url: string, headers: IncomingHttpHeaders, raw: string, res: ServerResponse): void {
    let body: unknown = raw;
    try {
      body = JSON.parse(raw);
    } catch {
      // recorded as text
    }
    this.requests.push({ method, url, headers, body });
    const next = this.replies.shift();
    if (!next) {
      res.writeHead(500, { 'content-type': 'application/json', 'x-should-retry': 'false' });
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'fake server: no scripted reply left' } }));
      return;
    }
    if (next.kind === 'error') {
      res.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      res.end(JSON.stringify(next.body));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': 'req_fake' });
    for (const e of next.events) res.write(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
    if (next.hang) {
      this.hanging.add(res);
      res.on('close', () => this.hanging.delete(res));
      return;
    }
    res.end();
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
