// One attempt to deliver one notification to one target (docs/config.md): a JSON POST (with an
// HMAC-SHA256 signature when the target has a secret), Slack's `{text}`, ntfy's plain text, or a
// shell command with the payload on stdin. It throws a DeliveryError saying whether to retry.
import { createHmac, randomUUID } from 'node:crypto';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { NOTIFY } from '../contract.js';
import { packageVersion } from '../util/package-root.js';
import type { NotificationPayload } from './payload.js';
import { runShell, stoppedNote } from './shell.js';
import type { Target } from './targets.js';

export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

const SIGNATURE_HEADER = 'x-ralph-signature-256';

/** The request a target gets for a payload: body and headers. */
function requestFor(target: Exclude<Target, { kind: 'command' }>, payload: NotificationPayload): { body: string; headers: Record<string, string> } {
  const common = { 'user-agent': `ralph/${packageVersion()}`, 'x-ralph-event': payload.event };
  switch (target.kind) {
    case 'webhook': {
      const body = JSON.stringify(payload);
      const headers: Record<string, string> = { ...target.headers, ...common, 'content-type': 'application/json', 'x-ralph-delivery': randomUUID() };
      if (target.secret) headers[SIGNATURE_HEADER] = `sha256=${createHmac('sha256', target.secret).update(body).digest('hex')}`;
      return { body, headers };
    }
    case 'slack':
      return { body: JSON.stringify({ text: slackEscape(payload.summary) }), headers: { ...common, 'content-type': 'application/json' } };
    case 'ntfy':
      // Plain text only: untrusted text never goes into a header (ntfy reads Title etc. from headers).
      return { body: payload.summary, headers: { ...target.headers, ...common, 'content-type': 'text/plain; charset=utf-8' } };
    default: {
      const never: never = target;
      throw new Error(`unknown target ${JSON.stringify(never)}`);
    }
  }
}

/** Slack's mrkdwn reads &, < and > as markup (links, mentions): escaped as its docs ask. */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Delivers, or throws a DeliveryError; resolves to a note worth a warning (what a command left running). */
export async function deliverOnce(target: Target, payload: NotificationPayload, signal: AbortSignal, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  if (target.kind === 'command') {
    const out = await runShell(target.command, {
      cwd: payload.cwd,
      env: { ...env, ...payloadEnv(payload) },
      stdin: `${JSON.stringify(payload)}\n`,
      timeoutMs: target.timeoutMs,
      signal,
    });
    if (out.error) throw new DeliveryError(out.error, false);
    if (out.timedOut) throw new DeliveryError(`timed out after ${Math.round(target.timeoutMs / 1000)}s${stoppedNote(out)}`, false);
    if (out.aborted) throw new DeliveryError(`stopped${stoppedNote(out)}`, false);
    // A command is not repeated: its failure is rarely passing, and it may have done half its work.
    if (out.exitCode !== 0) throw new DeliveryError(`exited ${out.exitCode ?? 'by a signal'}${out.tail ? `: ${out.tail.split('\n').pop()}` : ''}`, false);
    // Nothing a command target starts outlives it.
    return out.stopped.length > 0 ? `the command left processes running when it exited${stoppedNote(out)}` : undefined;
  }
  const { body, headers } = requestFor(target, payload);
  await post(target.url, body, headers, signal);
  return undefined;
}

/** The facts of a payload as environment variables for a command target (and hooks). */
function payloadEnv(p: NotificationPayload): Record<string, string> {
  const env: Record<string, string> = { RALPH_EVENT: p.event, RALPH_SUMMARY_TEXT: p.summary };
  const put = (name: string, v: string | number | null | undefined) => {
    if (v !== null && v !== undefined) env[name] = String(v);
  };
  put('RALPH_PLAN_ID', p.plan);
  put('RALPH_PLAN', p.planPath);
  put('RALPH_RUN_ID', p.runId);
  put('RALPH_RUN_DIR', p.runDir);
  put('RALPH_OUTCOME', p.outcome);
  put('RALPH_EXIT_CODE', p.exitCode);
  put('RALPH_REASON', p.reason);
  put('RALPH_BATCH_OUT', p.batch?.out);
  return env;
}

function post(url: string, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    // No keep-alive agent: a pooled socket would hold the process open after the run.
    const req = request(url, { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent: false, signal });
    const timer = setTimeout(() => req.destroy(new DeliveryError(`no answer within ${NOTIFY.attemptTimeoutMs / 1000}s`, true)), NOTIFY.attemptTimeoutMs);
    req.on('response', (res: IncomingMessage) => {
      res.resume(); // the body is not read, but must be drained
      res.on('end', () => clearTimeout(timer));
      const status = res.statusCode ?? 0;
      if (status >= 200 && status < 300) {
        clearTimeout(timer);
        resolve();
        return;
      }
      clearTimeout(timer);
      const retryable = status === 408 || status === 429 || status >= 500;
      reject(new DeliveryError(`answered HTTP ${status}`, retryable));
    });
    req.on('error', (error) => {
      clearTimeout(timer);
      if (error instanceof DeliveryError) reject(error);
      else if (signal.aborted) reject(new DeliveryError('given up', false));
      else reject(new DeliveryError(error.message, true));
    });
    req.end(body);
  });
}
