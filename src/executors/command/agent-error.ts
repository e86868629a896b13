// One path for every error an agent CLI reports in its stream (docs/agents.md, "Limits and
// errors"): a refused key or a spent API budget is fatal, a usage or rate limit is a `limit` the
// loop waits on, anything else is an error shown as a warning. The decoders only word the message
// and say what the agent gave (its words, an HTTP status, an error code).
import { isSpendCap, limitEvent, limitPhrase, withTimes } from '../../agents/limit-text.js';
import type { ExecutorEvent, LimitKind } from '../types.js';
import { WARNING_MAX, bounded } from './untrusted.js';

/** HTTP statuses after which no retry can succeed: the key or its permissions are wrong. */
export const FATAL_STATUSES: ReadonlySet<number> = new Set([401, 403]);

/** Words of a refused key, when no status came with them (Codex, Gemini CLI, Qwen Code say so in text). */
const REFUSED_KEY = /\b(?:401|403)\b|\bunauthori[sz]ed\b|\bforbidden\b|\binvalid[ _-]?(?:x-)?api[ _-]?key\b|\bincorrect api key\b|\bAPI key not valid\b|\bPERMISSION_DENIED\b|\bUNAUTHENTICATED\b/i;

/** Error codes (Claude Code's `error`, opencode's error name) that mean the same. */
const FATAL_CODES = new Set(['authentication_failed', 'ProviderAuthError']);

export interface AgentError {
  /** The warning as the decoder words it ("codex error: …", "claude reported an API error (HTTP 429): …"). */
  message: string;
  /** The agent's own words, read for limit phrases and times. */
  text: string;
  status?: number;
  code?: string;
  /** Epoch ms the words' "resets 3am" is read against. */
  now: number;
}

const SPEND_CAP_HINT =
  "the API key's spend limit is reached and no wait within the run lifts it: raise the limit in the provider's console (Anthropic: Settings → Limits) or use another key, then resume the run";

/** The events one reported error means, in order: the error (fatal or not), then any limit. */
export function agentErrorEvents(e: AgentError): ExecutorEvent[] {
  const status = e.status !== undefined ? { status: e.status } : {};
  if (isSpendCap(e.text)) {
    return [{ type: 'error', message: bounded(`${e.message} — ${SPEND_CAP_HINT}`, WARNING_MAX), fatal: true, ...status }];
  }
  const kind = limitKind(e);
  if (kind === undefined && ((e.status !== undefined && FATAL_STATUSES.has(e.status)) || (e.code !== undefined && FATAL_CODES.has(e.code)) || REFUSED_KEY.test(e.text))) {
    return [{ type: 'error', message: e.message, fatal: true, ...status }];
  }
  if (kind === undefined) return [{ type: 'error', message: e.message, ...status }];
  return [{ type: 'error', message: e.message, ...status, limit: true }, limitEvent(withTimes({ kind }, e.text, e.now), e.message)];
}

/**
 * The status decides the kind where it can (529 overloaded; 429 a rate limit unless the words say
 * usage); else the words. Only the kind: the times are read once, by the caller.
 */
function limitKind(e: AgentError): LimitKind | undefined {
  if (e.status !== undefined && FATAL_STATUSES.has(e.status)) return undefined;
  const phrase = limitPhrase(e.text)?.kind;
  // A spend cap never reaches here (agentErrorEvents ends on it first); it is no limit to wait on.
  const said = phrase === 'spend_cap' ? undefined : phrase;
  if (e.status === 529 || e.code === 'overloaded' || e.code === 'overloaded_error') return 'overloaded';
  if (e.status === 429 || e.code === 'rate_limit') return said === 'usage' ? 'usage' : 'rate';
  return said;
}
