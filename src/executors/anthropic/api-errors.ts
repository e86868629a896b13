// What a failed request means for the iteration. The SDK has already retried what is worth
// retrying (429, 529, 5xx, with retry-after honoured); what reaches here is final.
import { isSpendCap } from '../../agents/limit-text.js';
import type { LimitKind } from '../types.js';
import { retryAfterMs } from './limit-fetch.js';
import {
  APIConnectionError,
  APIError,
  APIUserAbortError,
  AuthenticationError,
  BadRequestError,
  ContentTooLargeError,
  PermissionDeniedError,
} from '@anthropic-ai/sdk';

export type RequestFailure =
  | { kind: 'aborted' }
  /** The key is refused, or its spend limit reached: no later iteration can succeed. */
  | { kind: 'auth'; message: string }
  /** The conversation no longer fits the model's context window: start a fresh one. */
  | { kind: 'context'; message: string }
  /** A rate or usage limit, or an overloaded API, that outlasted the SDK's retries: the loop waits. */
  | { kind: 'limit'; limit: LimitKind; message: string; retryAfterMs?: number }
  | { kind: 'failed'; message: string };

// The API words this as "prompt is too long: N tokens > M maximum"; the rest are defensive.
const CONTEXT_PATTERN = /prompt is too long|context window|context length|input is too long|too many (input )?tokens/i;

function isContextOverflow(e: unknown): boolean {
  if (e instanceof ContentTooLargeError) return true;
  if (!(e instanceof BadRequestError)) return false;
  return CONTEXT_PATTERN.test(e.apiMessage ?? e.message);
}

function isRetryable(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function classifyFailure(e: unknown, signal: AbortSignal, maxRetries: number): RequestFailure {
  if (signal.aborted || e instanceof APIUserAbortError) return { kind: 'aborted' };
  if (e instanceof AuthenticationError || e instanceof PermissionDeniedError) {
    return { kind: 'auth', message: `the API refused the key (${e.status}): check ANTHROPIC_API_KEY` };
  }
  if (isContextOverflow(e)) {
    return { kind: 'context', message: `the conversation is too long for the model's context window (${(e as APIError).status})` };
  }
  if (e instanceof APIConnectionError) {
    return { kind: 'failed', message: `could not reach the Anthropic API after ${maxRetries} retries: ${e.message}` };
  }
  if (e instanceof APIError) {
    const status = e.status;
    const detail = e.apiMessage ?? e.message;
    const type = e.type ? ` ${e.type}` : '';
    // The key's monthly spend cap (a 400): no wait within a run lifts it (docs/agents.md).
    if (isSpendCap(detail)) {
      return { kind: 'auth', message: `the Anthropic API refused (${status ?? 'stream'}${type}): ${detail} — the API key's spend limit is reached: raise it in the Anthropic Console (Settings → Limits) or use another key, then resume the run` };
    }
    if (status === undefined) {
      // An overloaded_error can also arrive inside a stream that had begun.
      if (e.type === 'overloaded_error') return { kind: 'limit', limit: 'overloaded', message: `the Anthropic API is overloaded: ${detail}` };
      return { kind: 'failed', message: `the Anthropic API stream failed:${type} ${detail}` };
    }
    if (status === 429 || status === 529) {
      const wait = retryAfterMs(e.headers ?? undefined);
      const limit: LimitKind = status === 529 ? 'overloaded' : /usage|quota|credit|billing/i.test(detail) ? 'usage' : 'rate';
      return { kind: 'limit', limit, message: `the Anthropic API refused (${status}${type}): ${detail}`, ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
    }
    const retried = isRetryable(status) && e.headers?.get('x-should-retry') !== 'false' ? ` after ${maxRetries} retries` : '';
    return { kind: 'failed', message: `the Anthropic API failed${retried} (${status}${type}): ${detail}` };
  }
  return { kind: 'failed', message: `the Anthropic request failed: ${e instanceof Error ? e.message : String(e)}` };
}
