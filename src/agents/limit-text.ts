// Reading usage- and rate-limit messages that agent CLIs print as prose ("You've hit your limit ·
// resets 3am (Europe/Berlin)", "You've hit your usage limit. Try again later."), so that every
// format — and plain text — can report a `limit` event the loop waits on (docs/agents.md).
import type { ExecutorEvent, LimitKind } from '../executors/types.js';

export interface LimitMatch {
  kind: LimitKind;
  resetsAt?: number;
  retryAfterMs?: number;
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

const USAGE = /\b(?:you[’']ve|you have) (?:hit|reached) your (?:usage |weekly |session |5-hour |daily )?limit\b|\busage limit (?:reached|exceeded)\b|\bquota (?:exceeded|exhausted)\b|\binsufficient_quota\b|\bRESOURCE_EXHAUSTED\b/i;
const RATE = /\brate[ _-]?limit(?:ed|s)?\b|\btoo many requests\b|\b429\b/i;
const OVERLOADED = /\boverloaded\b|\b529\b/i;

/** The kind of limit a message speaks of, if any; `now` anchors "resets 3am". */
export function limitFromText(text: string, now: number = Date.now()): LimitMatch | undefined {
  const kind: LimitKind | undefined = USAGE.test(text) ? 'usage' : RATE.test(text) ? 'rate' : OVERLOADED.test(text) ? 'overloaded' : undefined;
  if (kind === undefined) return undefined;
  const out: LimitMatch = { kind };
  const resetsAt = resetTime(text, now);
  if (resetsAt !== undefined) out.resetsAt = resetsAt;
  const after = retryAfter(text);
  if (after !== undefined) out.retryAfterMs = after;
  return out;
}

/** The `limit` event for a match, under `message`. */
export function limitEvent(limit: LimitMatch, message: string): Extract<ExecutorEvent, { type: 'limit' }> {
  return {
    type: 'limit',
    kind: limit.kind,
    message,
    ...(limit.resetsAt !== undefined ? { resetsAt: limit.resetsAt } : {}),
    ...(limit.retryAfterMs !== undefined ? { retryAfterMs: limit.retryAfterMs } : {}),
  };
}

/** "try again in 20s", "try again in 5 minutes", "retry after 2 hours". */
export function retryAfter(text: string): number | undefined {
  const m = /\b(?:try again|retry) (?:in|after) ~?(\d+(?:\.\d+)?)\s*(ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?|d|days?)\b/i.exec(text);
  if (!m) return undefined;
  const unit = m[2]!.toLowerCase();
  const ms = unit === 'ms' ? 1 : UNIT_MS[unit[0]!] ?? 1_000;
  return Math.round(Number(m[1]) * ms);
}

/** "resets 3am", "resets 3:30pm (Europe/Berlin)", "resets at 15:00 (UTC)": the next such time. */
export function resetTime(text: string, now: number): number | undefined {
  const m = /\bresets?(?: at)? (\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*\(([^)]+)\))?/i.exec(text);
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  const half = m[3]?.toLowerCase();
  if (half === undefined && m[2] === undefined) return undefined; // a bare number is not a time
  if (hour > 23 || minute > 59 || (half !== undefined && (hour < 1 || hour > 12))) return undefined;
  if (half === 'pm' && hour !== 12) hour += 12;
  if (half === 'am' && hour === 12) hour = 0;
  const zone = m[4]?.trim();
  for (let day = 0; day <= 1; day++) {
    const at = wallTimeIn(zone, now, day, hour, minute);
    if (at === undefined) return undefined;
    if (at > now) return at;
  }
  return undefined;
}

/** Epoch ms of hour:minute on (today + dayOffset) in `zone` (local time when none). */
function wallTimeIn(zone: string | undefined, now: number, dayOffset: number, hour: number, minute: number): number | undefined {
  if (zone === undefined) {
    const d = new Date(now);
    d.setDate(d.getDate() + dayOffset);
    d.setHours(hour, minute, 0, 0);
    return d.getTime();
  }
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).formatToParts(new Date(now));
  } catch {
    return undefined; // a zone name Intl does not know
  }
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  // The zone's offset now: its wall clock read as UTC, minus the real instant.
  const wallNowAsUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'));
  const offset = wallNowAsUtc - Math.floor(now / 60_000) * 60_000;
  return Date.UTC(get('year'), get('month') - 1, get('day') + dayOffset, hour, minute) - offset;
}

/**
 * A limit in a line an agent CLI printed in plain text mode. Stricter than limitFromText, since in
 * text mode the agent's own words are read too and may mention limits in passing: only the CLIs'
 * own notices count — Claude Code's "Claude AI usage limit reached|<epoch seconds>", "You've hit
 * your limit · resets 3am", "API Error: 429 …" / "… (529) …", Codex's "ERROR: You've hit your usage
 * limit …".
 */
export function limitFromPlainLine(line: string, now: number = Date.now()): LimitMatch | undefined {
  const text = line.trim();
  const epoch = /^Claude AI usage limit reached\|(\d{9,13})$/.exec(text);
  if (epoch) {
    const n = Number(epoch[1]);
    return { kind: 'usage', resetsAt: n < 1e12 ? n * 1000 : n };
  }
  if (/^(?:ERROR:\s*|■\s*)?you[’']ve hit your (?:usage |weekly |session )?limit\b/i.test(text)) return limitFromText(text, now) ?? { kind: 'usage' };
  const api = /^(?:ERROR:\s*)?API Error:?.*?\b(429|529)\b/i.exec(text);
  if (api) {
    const found = limitFromText(text, now);
    const kind = api[1] === '529' ? 'overloaded' : found?.kind === 'usage' ? 'usage' : 'rate';
    return { ...found, kind };
  }
  return undefined;
}
