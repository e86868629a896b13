import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timeOf } from '../../../src/findings/report/time-of.js';

describe('timeOf', () => {
  it('reads canonical times exactly as Date.parse does, and others through it', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31) }), (ms) => {
        const s = new Date(ms).toISOString();
        expect(timeOf(s)).toBe(Date.parse(s));
      }),
    );
    for (const s of ['2026-02-30T00:00:00.000Z', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00+02:00', '0050-01-01T00:00:00.000Z']) {
      expect(timeOf(s)).toBe(Date.parse(s));
    }
    for (const s of ['', 'yesterday', '2026-13-01T00:00:00.000Z', '2026-01-01T24:61:00.000Z']) expect(timeOf(s)).toBe(-Infinity);
  });
});
