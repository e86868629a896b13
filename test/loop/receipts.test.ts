import { describe, expect, it } from 'vitest';
import { estimateCost } from '../../src/loop/price-table.js';
import { iterationReceipt, taskReceipts } from '../../src/loop/receipts.js';

const tokens = { input: 1_000_000, output: 100_000, cacheRead: 0, cacheWrite: 0 };
const receipt = (iteration: number, costUsd: number | null, priceKey = 'claude-json') =>
  iterationReceipt({ iteration, durationMs: 10, tokens, costUsd, priceKey, decision: 'none', checks: [], rejection: null });

describe('receipts', () => {
  it('a reported cost is kept; tokens without a cost are priced from the table and marked as an estimate', () => {
    expect(receipt(1, 0.5)).toMatchObject({ costUsd: 0.5, costEstimated: false });
    expect(receipt(1, null, 'codex-json')).toMatchObject({ costUsd: 1.25 + 1, costEstimated: true });
    expect(estimateCost('text', tokens)).toBeUndefined();
    expect(receipt(1, null, 'text')).toMatchObject({ costUsd: null, costEstimated: false });
  });

  it('a task costs the iterations up to the one where it first passed', () => {
    const receipts = [receipt(1, 0.25), receipt(2, 0.5), receipt(3, 1)];
    const tasks = taskReceipts(
      [
        { name: 'A', verify: 'x', status: 'passing', firstPassedIteration: 2 },
        { name: 'B', verify: 'y', status: 'failing', firstPassedIteration: null },
        { name: 'C', verify: 'z', status: 'passing', firstPassedIteration: 0 },
      ],
      receipts,
    );
    expect(tasks.map((t) => [t.name, t.iterations, t.costUsd])).toEqual([
      ['A', 2, 0.75],
      ['B', null, null],
      ['C', 0, 0],
    ]);
  });
});
