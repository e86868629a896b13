// A stand-in for the Gemini API (generateContent, streamGenerateContent with alt=sse, countTokens)
// on 127.0.0.1, for the real Gemini CLI (pointed at it with GOOGLE_GEMINI_BASE_URL). The main
// agent's requests (those offering the shell tool) follow the scenario named by the marker in the
// conversation; a shell step becomes a call of `run_shell_command`. Other requests (the CLI's own
// checks) get a short answer without usage.
import type { ServerResponse } from 'node:http';
import { scenarioOf, type ModelTurn } from './scenarios.js';
import { json, StandInServer } from './stand-in-server.js';

export const TURN_USAGE = { promptTokenCount: 1500, cachedContentTokenCount: 1000, candidatesTokenCount: 60 };

export class GeminiStandIn extends StandInServer {
  static start(): Promise<GeminiStandIn> {
    return new GeminiStandIn().listen();
  }

  protected handle(path: string, raw: string, res: ServerResponse): void {
    if (path.endsWith(':countTokens')) return json(res, { totalTokens: 100 });
    const stream = path.endsWith(':streamGenerateContent');
    if (!stream && !path.endsWith(':generateContent')) return json(res, { error: { code: 404, message: `stand-in: no ${path}`, status: 'NOT_FOUND' } }, 404);
    let body: { contents?: { role?: string }[]; tools?: { functionDeclarations?: { name?: string }[] }[] };
    try {
      body = JSON.parse(raw);
    } catch {
      return json(res, { error: { code: 400, message: 'not JSON' } }, 400);
    }
    const mainAgent = (body.tools ?? []).some((t) => (t.functionDeclarations ?? []).some((f) => f.name === 'run_shell_command'));
    const scenario = mainAgent ? scenarioOf(raw) : undefined;
    if (scenario && this.refuseForLimit(res)) return;
    let parts: unknown[];
    let usage = { promptTokenCount: 0, candidatesTokenCount: 0, totalTokenCount: 0 } as Record<string, number>;
    if (scenario) {
      const turn = (body.contents ?? []).filter((c) => c.role === 'model').length;
      this.served.push({ scenario: scenario.name, turn, body: raw });
      const answer: ModelTurn = scenario.next({ turn, body: raw });
      parts = [];
      if (answer.text) parts.push({ text: answer.text });
      if (answer.shell) parts.push({ functionCall: { name: 'run_shell_command', args: { command: answer.shell, description: 'scenario step' } } });
      const u = TURN_USAGE;
      usage = { ...u, totalTokenCount: u.promptTokenCount + u.candidatesTokenCount };
      this.reported.input += u.promptTokenCount - u.cachedContentTokenCount;
      this.reported.cacheRead += u.cachedContentTokenCount;
      this.reported.output += u.candidatesTokenCount;
    } else {
      // The CLI's own checks (next speaker, loop detection) ask for JSON.
      parts = [{ text: mainAgent ? 'stand-in: no scenario marker in this conversation' : '{"reasoning":"the model has finished","next_speaker":"user"}' }];
    }
    const response = { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: usage, modelVersion: 'gemini-2.5-pro' };
    if (!stream) return json(res, response);
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify(response)}\r\n\r\n`);
    res.end();
  }
}
