// Notification text (docs/config.md, "summary"): agent text cut to one line without control
// characters, and nothing else changed (a `|` is no column separator in a notification).
import { describe, expect, it } from 'vitest';
import { basePayload, clean, withSummary } from '../../src/notify/payload.js';

describe('notification text', () => {
  it('keeps | and <!-- as written, removes control characters and line breaks, bounds the length', () => {
    expect(clean('tests: 3 passed | 1 failed <!-- x -->')).toBe('tests: 3 passed | 1 failed <!-- x -->');
    expect(clean('a\nb\r\n\x1b]52;c;eA==\x07c\u2028d\u009be')).toBe('a b ]52;c;eA== c d e');
    expect(clean('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it("a blocked plan's summary line quotes its reason with its | intact", () => {
    const p = withSummary({ ...basePayload('blocked', new Date('2026-01-02T03:04:05Z'), '/work'), plan: 'demo', runDir: '/work/.ralph/runs/r1', outcome: 'blocked', reason: 'needs KEY_A | KEY_B\nsecond line' });
    expect(p.summary).toBe('ralph: plan demo is blocked: needs KEY_A | KEY_B second line (run /work/.ralph/runs/r1)');
  });
});
