import { describe, expect, it } from 'vitest';
import { costIs, firstLimit, iterationCountIs, runtimeIs } from '../../src/loop/stop-rules.js';

const ctx = (o: Partial<{ iteration: number; costUsd: number | null; elapsedMs: number }> = {}) => ({
  iteration: 0,
  costUsd: null,
  elapsedMs: 0,
  ...o,
});

describe('stop rules', () => {
  it('iterationCountIs: reached once that many iterations ran', () => {
    const rule = iterationCountIs(3);
    expect(rule.name).toBe('max_iterations');
    expect(rule.check(ctx({ iteration: 2 }))).toBeUndefined();
    expect(rule.check(ctx({ iteration: 3 }))).toMatch(/^max_iterations reached: 3 of 3/);
  });

  it('costIs: an unknown cost never reaches it; the limit itself does', () => {
    const rule = costIs(5);
    expect(rule.name).toBe('max_cost');
    expect(rule.check(ctx({ costUsd: null }))).toBeUndefined();
    expect(rule.check(ctx({ costUsd: 4.99 }))).toBeUndefined();
    expect(rule.check(ctx({ costUsd: 5 }))).toMatch(/^max_cost reached: \$5\.0000 spent of \$5/);
  });

  it('runtimeIs: reached at the limit, and says how long it ran', () => {
    const rule = runtimeIs(90 * 60_000);
    expect(rule.name).toBe('max_runtime');
    expect(rule.check(ctx({ elapsedMs: 90 * 60_000 - 1 }))).toBeUndefined();
    const reason = rule.check(ctx({ elapsedMs: 90 * 60_000 }));
    expect(reason).toMatch(/^max_runtime reached/);
    expect(reason).toMatch(/1h30m|90m/);
  });

  it('firstLimit: the first rule that fires, named, so one reason is never reported for another limit', () => {
    const rules = [iterationCountIs(10), costIs(1), runtimeIs(1_000)];
    expect(firstLimit(rules, ctx({ iteration: 3, costUsd: 0.5, elapsedMs: 10 }))).toBeUndefined();
    expect(firstLimit(rules, ctx({ iteration: 3, costUsd: 2, elapsedMs: 10 }))).toMatchObject({ rule: 'max_cost', reason: expect.stringMatching(/^max_cost reached/) });
    expect(firstLimit(rules, ctx({ iteration: 3, costUsd: 0, elapsedMs: 5_000 }))).toMatchObject({ rule: 'max_runtime' });
    expect(firstLimit(rules, ctx({ iteration: 10, costUsd: 2, elapsedMs: 5_000 }))).toMatchObject({ rule: 'max_iterations' });
    expect(firstLimit([], ctx({ iteration: 99 }))).toBeUndefined();
  });
});
