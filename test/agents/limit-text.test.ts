import { describe, expect, it } from 'vitest';
import { limitFromPlainLine, limitFromText, resetTime, retryAfter } from '../../src/agents/limit-text.js';

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
    ["You've hit your limit · resets 3am (UTC)", { kind: 'usage', resetsAt: Date.UTC(2026, 10, 26, 3, 0) }],
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
