import { describe, expect, it } from 'vitest';
import { limitFromText, resetTime, retryAfter } from '../../src/agents/limit-text.js';

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
