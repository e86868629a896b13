import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL, MODEL_PRICES, costOf } from '../../../src/executors/anthropic/index.js';

describe('the price table', () => {
  it('prices the default model', () => {
    expect(MODEL_PRICES[DEFAULT_MODEL]).toBeDefined();
  });

  it('adds each kind of token at its own rate, per million', () => {
    const usage = { input: 1_000_000, output: 2_000_000, cacheWrite: 4_000_000, cacheRead: 8_000_000 };
    for (const [model, p] of Object.entries(MODEL_PRICES)) {
      const expected = p.inputPerMTok + 2 * p.outputPerMTok + 4 * p.cacheWritePerMTok + 8 * p.cacheReadPerMTok;
      expect(costOf(model, usage), model).toBeCloseTo(expected, 9);
    }
    expect(costOf('claude-opus-4-7', { input: 3, output: 7, cacheWrite: 11, cacheRead: 13 })).toBeCloseTo(
      (3 * 5 + 7 * 25 + 11 * 6.25 + 13 * 0.5) / 1e6,
      15,
    );
  });

  it('costs nothing for no tokens, but null (unknown) for a model it does not know', () => {
    const zero = { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 };
    expect(costOf(DEFAULT_MODEL, zero)).toBe(0);
    expect(costOf('claude-unknown-1', zero)).toBeNull();
    expect(costOf('toString', zero)).toBeNull();
  });

  it('keeps the usual relations between rates (a typo would break one)', () => {
    for (const [model, p] of Object.entries(MODEL_PRICES)) {
      expect(p.outputPerMTok, model).toBeGreaterThan(p.inputPerMTok);
      expect(p.cacheWritePerMTok, model).toBeCloseTo(p.inputPerMTok * 1.25, 9);
      expect(p.cacheReadPerMTok, model).toBeLessThan(p.inputPerMTok);
    }
  });
});
