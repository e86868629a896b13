// Reading usage- and rate-limit messages that agent CLIs print as prose ("You've hit your limit ·
// resets 3am (Europe/Berlin)", "You've hit your usage limit … try again at 7:33 PM."), so that
// every format — and plain text — can report a `limit` event the loop waits on. The phrases, one
// table per agent with where each was seen, are in docs/agents.md ("Limit words").
import type { ExecutorEvent, LimitKind } from '../executors/types.js';

export interface LimitMatch {
  kind: LimitKind;
  /** Epoch ms when the limit lifts. */
  resetsAt?: number;
  /**
   * `resetsAt` was read from words: a time of day, rounded down to the minute (or the hour). An
   * exact time from a structured event or an epoch always wins over it (docs/overnight.md).
   */
  resetFromWords?: boolean;
  retryAfterMs?: number;
}

/** A phrase an agent CLI (or the API behind it) uses for a limit, and where it was seen. */
export interface LimitPhrase {
  agent: 'Claude Code' | 'Codex' | 'Gemini CLI' | 'opencode' | 'Qwen Code' | 'any';
  pattern: RegExp;
  kind: LimitKind | 'spend_cap';
  /** The real wording, as the agent printed it (checked against docs/agents.md by the tests). */
  example: string;
  /** A CLI's own notice, printed on a line of its own: text mode reads it (limitFromPlainLine). */
  notice?: true;
}

const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Every phrase ralph knows, most decisive first: a spend cap is fatal, a usage limit waits for
 * its reset, a rate limit backs off briefly, an overloaded API briefly too.
 */
export const LIMIT_PHRASES: readonly LimitPhrase[] = [
  // The API key's monthly spend cap: no wait within a night lifts it (Anthropic's 400 invalid_request_error).
  { agent: 'any', kind: 'spend_cap', pattern: /\breached your specified API usage limits\b/i, example: 'You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC.' },
  { agent: 'Codex', kind: 'usage', pattern: /\byou[’']ve hit your usage limit\b/i, notice: true, example: 'You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 7:33 PM.' },
  { agent: 'Claude Code', kind: 'usage', pattern: /\byou[’']ve hit your (?:[\w-]+ ){0,2}limit\b/i, notice: true, example: "You've hit your session limit · resets 8:03pm (UTC)" },
  { agent: 'Claude Code', kind: 'usage', pattern: /\byou[’']re out of extra usage\b/i, notice: true, example: "You're out of extra usage · resets 9pm" },
  { agent: 'Claude Code', kind: 'usage', pattern: /\b(?:5-hour|weekly|session|daily|opus|sonnet) limit reached\b/i, notice: true, example: '5-hour limit reached ∙ resets 12pm' },
  { agent: 'Claude Code', kind: 'usage', pattern: /\bClaude (?:AI )?usage limit reached\b/i, notice: true, example: 'Claude usage limit reached. Your limit will reset at 12am.' },
  { agent: 'Gemini CLI', kind: 'usage', pattern: /\bexhausted your (?:[\w-]+ ){0,2}quota\b/i, example: '[API Error: You have exhausted your daily quota on this model.]' },
  { agent: 'Gemini CLI', kind: 'usage', pattern: /\bRESOURCE_EXHAUSTED\b|\bTerminalQuotaError\b/, example: 'RESOURCE_EXHAUSTED' },
  { agent: 'opencode', kind: 'usage', pattern: /\bexceeded your current quota\b|\binsufficient_quota\b/i, example: 'You exceeded your current quota, please check your plan and billing details.' },
  { agent: 'any', kind: 'usage', pattern: /\busage limit (?:reached|exceeded)\b|\bquota (?:exceeded|exhausted)\b/i, example: 'usage limit reached' },
  { agent: 'any', kind: 'rate', pattern: /\brate[ _-]?limit(?:ed|s)?\b|\btoo many requests\b|\b429\b/i, example: "API Error: Request rejected (429) · This request would exceed your account's rate limit. Please try again later." },
  { agent: 'any', kind: 'overloaded', pattern: /\boverloaded\b|\b529\b/i, example: 'API Error: 529 Overloaded' },
];

/** The first phrase `text` holds, if any. */
export function limitPhrase(text: string): LimitPhrase | undefined {
  return LIMIT_PHRASES.find((p) => p.pattern.test(text));
}

/** Whether `text` speaks of the API key's spend cap (fatal: docs/agents.md). */
export function isSpendCap(text: string): boolean {
  return LIMIT_PHRASES.some((p) => p.kind === 'spend_cap' && p.pattern.test(text));
}

/** The kind of limit a message speaks of, if any, and when it lifts; `now` anchors "resets 3am". */
export function limitFromText(text: string, now: number = Date.now()): LimitMatch | undefined {
  const phrase = limitPhrase(text);
  if (phrase === undefined || phrase.kind === 'spend_cap') return undefined;
  return withTimes({ kind: phrase.kind }, text, now);
}

/** `limit` with the reset time or the wait that `text` gives, if it gives one. */
export function withTimes(limit: LimitMatch, text: string, now: number): LimitMatch {
  const out: LimitMatch = { ...limit };
  const epoch = epochReset(text);
  const words = epoch === undefined ? resetTime(text, now) : undefined;
  if (epoch !== undefined) out.resetsAt = epoch;
  else if (words !== undefined) {
    out.resetsAt = words;
    out.resetFromWords = true;
  }
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
    ...(limit.resetFromWords ? { resetFromWords: true } : {}),
    ...(limit.retryAfterMs !== undefined ? { retryAfterMs: limit.retryAfterMs } : {}),
  };
}

/** Claude Code's "Claude AI usage limit reached|1764112800": the exact reset, in epoch seconds (or ms). */
function epochReset(text: string): number | undefined {
  const m = /\blimit reached\|(\d{9,13})\b/i.exec(text);
  if (!m) return undefined;
  const n = Number(m[1]);
  return n < 1e12 ? n * 1000 : n;
}

/** "try again in 20s", "try again in 5 minutes", "retry after 2 hours", "Please retry in 20.5s". */
export function retryAfter(text: string): number | undefined {
  const m = /\b(?:try again|retry) (?:in|after) ~?(\d+(?:\.\d+)?)\s*(ms|s|sec|secs|seconds?|m|min|mins|minutes?|h|hrs?|hours?|d|days?)\b/i.exec(text);
  if (!m) return undefined;
  const unit = m[2]!.toLowerCase();
  const ms = unit === 'ms' ? 1 : UNIT_MS[unit[0]!] ?? 1_000;
  return Math.round(Number(m[1]) * ms);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MINUTE_MS = 60_000;

// "resets 3am", "resets 3:30pm (Europe/Berlin)", "resets at 15:00 (UTC)", "will reset at 12am",
// "resets Sep 15 at 7pm", "resets Feb 4, 8pm (Europe/Budapest)" (Claude Code); "try again at
// 7:33 PM", "try again at Nov 27th, 2026 7:33 PM" (Codex).
const RESET_AT =
  /\b(resets?|try again)(?: at)? (?:([a-z]{3})[a-z]* (\d{1,2})(?:st|nd|rd|th)?(?:,? (\d{4}))?(?:,| at)? )?(\d{1,2})(?::(\d{2}))?\s*(am|pm)?(?:\s*\(([^)]+)\))?/i;

/**
 * When the limit lifts, from words, in epoch ms. With a date: that date. Without one, the time
 * today; a time already past is "now" when it falls within the minute it names (the words are
 * rounded down: "resets 8:03pm" at 8:03:40 has not lifted a minute early, it lifts about now), and
 * always for Codex's "try again at" (Codex writes the date whenever it is not today); past that,
 * Claude Code's "resets 3am" at 10pm is the next 3am.
 */
export function resetTime(text: string, now: number): number | undefined {
  const m = RESET_AT.exec(text);
  if (!m) return undefined;
  const [, verb, monthName, dayText, yearText, hourText, minuteText, halfText, zoneText] = m;
  let hour = Number(hourText);
  const minute = minuteText === undefined ? 0 : Number(minuteText);
  const half = halfText?.toLowerCase();
  if (half === undefined && minuteText === undefined) return undefined; // a bare number is not a time
  if (hour > 23 || minute > 59 || (half !== undefined && (hour < 1 || hour > 12))) return undefined;
  if (half === 'pm' && hour !== 12) hour += 12;
  if (half === 'am' && hour === 12) hour = 0;
  const zone = zoneText?.trim();
  const today = zoneToday(zone, now);
  if (today === undefined) return undefined;
  if (monthName !== undefined) {
    const month = MONTHS.indexOf(monthName.toLowerCase());
    if (month === -1) return undefined;
    const day = Number(dayText);
    const year = yearText !== undefined ? Number(yearText) : today.year;
    let at = Date.UTC(year, month, day, hour, minute) - today.offset;
    // "Jan 2" read in late December is next year's.
    if (yearText === undefined && at < now - 86_400_000) at = Date.UTC(year + 1, month, day, hour, minute) - today.offset;
    return at;
  }
  const at = Date.UTC(today.year, today.month - 1, today.day, hour, minute) - today.offset;
  if (at > now) return at;
  if (now - at < MINUTE_MS || verb!.toLowerCase() === 'try again') return now;
  return Date.UTC(today.year, today.month - 1, today.day + 1, hour, minute) - today.offset;
}

/** Today's date in `zone` (local time when none), and the zone's offset from UTC now, in ms. */
function zoneToday(zone: string | undefined, now: number): { year: number; month: number; day: number; offset: number } | undefined {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).formatToParts(new Date(now));
  } catch {
    return undefined; // a zone name Intl does not know
  }
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  // The zone's offset now: its wall clock read as UTC, minus the real instant.
  const wallNowAsUtc = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'));
  return { year: get('year'), month: get('month'), day: get('day'), offset: wallNowAsUtc - Math.floor(now / MINUTE_MS) * MINUTE_MS };
}

/**
 * A word every line limitFromPlainLine accepts holds: text mode passes over the lines without one
 * unread (200 MB of output, docs/benchmarks.md). Kept beside the notices (LIMIT_PHRASES' `notice`
 * rows and API_ERROR below), which must each contain one of these words.
 */
export const PLAIN_NOTICE_HINT = /limit|extra usage|api error/gi;

/** The usage notices of LIMIT_PHRASES, at the start of a line (after Codex's "ERROR:" or a TUI's bullet). */
const PLAIN_NOTICE = new RegExp(
  `^(?:ERROR:\\s*|■\\s*|⎿\\s*)?(?:${LIMIT_PHRASES.filter((p) => p.notice && p.kind === 'usage')
    .map((p) => p.pattern.source)
    .join('|')})`,
  'i',
);
const API_ERROR = /^(?:ERROR:\s*)?API Error:?.*?\b(429|529)\b/i;

/**
 * A limit in a line an agent CLI printed in plain text mode. Stricter than limitFromText, since in
 * text mode the agent's own words are read too and may mention limits in passing: only the CLIs'
 * own notices count, each a whole line — the `notice` rows of LIMIT_PHRASES (Claude Code's "Claude
 * AI usage limit reached|<epoch>", "You've hit your limit · resets 3am", …; Codex's "ERROR:
 * You've hit your usage limit …") and "API Error: 429 …" / "… (529) …".
 */
export function limitFromPlainLine(line: string, now: number = Date.now()): LimitMatch | undefined {
  const text = line.trim();
  if (PLAIN_NOTICE.test(text)) return withTimes({ kind: 'usage' }, text, now);
  const api = API_ERROR.exec(text);
  if (api) {
    const found = limitFromText(text, now);
    const kind = api[1] === '529' ? 'overloaded' : found?.kind === 'usage' ? 'usage' : 'rate';
    return { ...found, kind };
  }
  return undefined;
}
