import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { timeOf, timeOfBytes } from '../../../src/findings/report/time-of.js';

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

  it('reads a time from UTF-8 bytes as from the string', () => {
    const times = fc.oneof(
      fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31) }).map((ms) => new Date(ms).toISOString()),
      fc.constantFrom('2026-02-30T00:00:00.000Z', '2026-01-01T00:00:00+02:00', 'yesterday', '', '２026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Ｚ'),
      fc.string({ maxLength: 30 }),
    );
    fc.assert(
      fc.property(times, (s) => {
        const b = Buffer.from(`"${s}"`);
        expect(timeOfBytes(b, 1, b.length - 1)).toBe(timeOf(s));
      }),
    );
  });
});
