import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LIMIT_PHRASES, limitFromPlainLine, limitFromText, limitPhrase, resetTime, retryAfter } from '../../src/agents/limit-text.js';

describe('limitFromText', () => {
  const now = Date.UTC(2026, 10, 25, 22, 15); // 22:15 UTC

  it.each([
    ["You've hit your limit · resets 3am (UTC)", 'usage'],
    ['You’ve hit your usage limit. Try again later.', 'usage'],
    ['Claude AI usage limit reached|1764112800', 'usage'],
    ['API Error: Request rejected (429) · rate limited', 'rate'],
    ['Too Many Requests', 'rate'],
    ['API Error: 529 Overloaded', 'overloaded'],
  ] as const)('%s → %s', (text, kind) => {
    expect(limitFromText(text, now)?.kind).toBe(kind);
  });

  it('nothing for ordinary errors', () => {
    expect(limitFromText('Error: cannot find module x', now)).toBeUndefined();
  });

  it('"resets 3am (UTC)" is the next 3am in that zone; a named zone is honoured', () => {
    expect(resetTime('resets 3am (UTC)', now)).toBe(Date.UTC(2026, 10, 26, 3, 0));
    expect(resetTime('resets 11pm (UTC)', now)).toBe(Date.UTC(2026, 10, 25, 23, 0));
    // Berlin is UTC+1 in November: 3am there is 2am UTC.
    expect(resetTime('resets 3am (Europe/Berlin)', now)).toBe(Date.UTC(2026, 10, 26, 2, 0));
    expect(resetTime('resets 3am (Not/AZone)', now)).toBeUndefined();
    expect(resetTime('resets 42', now)).toBeUndefined();
  });

  it('"try again in 20s" is a wait', () => {
    expect(retryAfter('Rate limit reached. Please try again in 20s.')).toBe(20_000);
    expect(retryAfter('try again in 5 minutes')).toBe(300_000);
    expect(limitFromText('rate limit exceeded, try again in 1.5 seconds', now)).toEqual({ kind: 'rate', retryAfterMs: 1500 });
  });
});

describe('limitFromPlainLine (text mode: only the CLIs’ own notices)', () => {
  const now = Date.UTC(2026, 10, 25, 22, 15);
  it.each([
    ['Claude AI usage limit reached|1764112800', { kind: 'usage', resetsAt: 1764112800_000 }],
    ["You've hit your limit · resets 3am (UTC)", { kind: 'usage', resetsAt: Date.UTC(2026, 10, 26, 3, 0), resetFromWords: true }],
    ['ERROR: You’ve hit your usage limit. Try again in 2 hours.', { kind: 'usage', retryAfterMs: 7_200_000 }],
    ['API Error: Request rejected (429) · rate limited', { kind: 'rate' }],
    ['API Error: 529 Overloaded', { kind: 'overloaded' }],
  ] as const)('%s', (line, expected) => {
    expect(limitFromPlainLine(line, now)).toEqual(expected);
  });

  it('the agent talking about limits is not a limit', () => {
    for (const line of ['I will add a rate limit of 100 requests', 'The API returns 429 when the limit is hit', 'usage limit reached in the test fixture']) {
      expect(limitFromPlainLine(line, now)).toBeUndefined();
    }
  });
});

describe('reset times from words (docs/overnight.md: an exact time wins; a past one is now)', () => {
  // 20:03:40 UTC: Claude Code's exact reset, which its words round down to "8:03pm".
  const exact = Date.UTC(2026, 10, 26, 20, 3, 40);

  it('a time within the minute it names, already past, is now — never tomorrow', () => {
    expect(resetTime('resets 8:03pm (UTC)', exact)).toBe(exact);
    expect(resetTime("You've hit your session limit · resets 8:03pm (UTC)", exact - 35_000)).toBe(exact - 35_000);
    // Past that minute, Claude Code's bare time is the next one.
    expect(resetTime('resets 8:03pm (UTC)', Date.UTC(2026, 10, 26, 20, 5))).toBe(Date.UTC(2026, 10, 27, 20, 3));
  });

  it("Codex's bare \"try again at\" is today (Codex writes the date otherwise): past means now", () => {
    const at = new Date(2026, 10, 26, 19, 33).getTime();
    expect(resetTime('or try again at 7:33 PM.', at - 60_000)).toBe(at);
    expect(resetTime('or try again at 7:33 PM.', at + 3 * 60_000)).toBe(at + 3 * 60_000);
    expect(resetTime('try again at Nov 27th, 2026 7:33 PM.', at)).toBe(new Date(2026, 10, 27, 19, 33).getTime());
  });

  it("Claude Code's dated resets: \"Sep 15 at 7pm\", \"Feb 4, 8pm (Europe/Budapest)\"", () => {
    const now = Date.UTC(2026, 8, 10, 12);
    expect(resetTime("You've hit your weekly limit · resets Sep 15 at 7pm (UTC)", now)).toBe(Date.UTC(2026, 8, 15, 19));
    // Budapest is UTC+2 in September; a month named before today's is next year's.
    expect(resetTime("You're out of extra usage · resets Feb 4, 8pm (Europe/Budapest)", now)).toBe(Date.UTC(2027, 1, 4, 18));
  });

  it('"|<epoch>" in the words is the exact reset, not one read from words', () => {
    expect(limitFromText('Claude AI usage limit reached|1764112800', Date.UTC(2025, 10, 25))).toEqual({ kind: 'usage', resetsAt: 1764112800_000 });
    expect(limitFromText("You've hit your limit · resets 3am (UTC)", Date.UTC(2026, 10, 25, 22))).toMatchObject({ resetFromWords: true });
  });
});

describe("every agent's limit words (docs/agents.md, \"Limit words\")", () => {
  const docs = readFileSync(join(import.meta.dirname, '../../docs/agents.md'), 'utf8');

  it.each(LIMIT_PHRASES.map((p) => [p.agent, p.example, p] as const))('%s: %s', (_agent, example, phrase) => {
    expect(limitPhrase(example)).toBe(phrase);
    // The table in the docs quotes each example, so the docs and the code cannot drift apart.
    expect(docs).toContain(example);
  });

  it.each([
    ["You're out of extra usage · resets 9pm", 'usage'],
    ['5-hour limit reached ∙ resets 12pm', 'usage'],
    ['Claude usage limit reached. Your limit will reset at 12am.', 'usage'],
    ['You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 7:33 PM.', 'usage'],
    ['[API Error: You have exhausted your daily quota on this model.]\nPlease wait and try again later.', 'usage'],
    ['You exceeded your current quota, please check your plan and billing details.', 'usage'],
  ] as const)('%s → %s', (text, kind) => {
    expect(limitFromText(text, Date.UTC(2026, 10, 26, 20))?.kind).toBe(kind);
  });

  it('a spend cap is no limit to wait for', () => {
    expect(limitFromText('You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC.')).toBeUndefined();
  });

  it('in text mode too: Claude Code’s notices in every wording, each a whole line', () => {
    const now = Date.UTC(2026, 10, 26, 20);
    expect(limitFromPlainLine('Claude usage limit reached. Your limit will reset at 11pm (UTC).', now)).toEqual({ kind: 'usage', resetsAt: Date.UTC(2026, 10, 26, 23), resetFromWords: true });
    expect(limitFromPlainLine("You're out of extra usage · resets 9pm (UTC)", now)).toEqual({ kind: 'usage', resetsAt: Date.UTC(2026, 10, 26, 21), resetFromWords: true });
    expect(limitFromPlainLine('5-hour limit reached ∙ resets 12pm (UTC)', now)).toEqual({ kind: 'usage', resetsAt: Date.UTC(2026, 10, 27, 12), resetFromWords: true });
    expect(limitFromPlainLine('The docs say "Claude usage limit reached" in this case', now)).toBeUndefined();
  });
});
