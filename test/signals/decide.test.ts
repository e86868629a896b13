// docs/signals.md#priority: blocked > failed > bailout > complete; within a class the last one wins;
// output signals in stream order, file claims after them (the caller's order is the weighing order).
import { describe, expect, it } from 'vitest';
import type { SignalClass } from '../../src/contract.js';
import { decide, type Weighed } from '../../src/signals/index.js';

const ITEM: Record<SignalClass, (n: number) => Weighed> = {
  complete: (n) => ({ class: 'complete', name: 'PLAN_COMPLETE', args: [], source: `complete-${n}` }),
  bailout: (n) => ({ class: 'bailout', name: 'BAILOUT', args: [`tired ${n}`], source: `bailout-${n}` }),
  failed: (n) => ({ class: 'failed', name: 'TEST_FAILED', args: ['web', String(n)], source: `failed-${n}` }),
  blocked: (n) => ({ class: 'blocked', name: 'BLOCKED', args: [`no key ${n}`], source: `blocked-${n}` }),
};

/** Every ordering of a list. */
function permutations<T>(xs: readonly T[]): T[][] {
  if (xs.length <= 1) return [[...xs]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)]).map((rest) => [x, ...rest]));
}

const RANK: SignalClass[] = ['blocked', 'failed', 'bailout', 'complete'];

describe('decide()', () => {
  it('no signals and no claims: none', () => {
    expect(decide([])).toEqual({ kind: 'none' });
  });

  it('one of each class gives that class, with its facts', () => {
    expect(decide([ITEM.complete(1)])).toEqual({ kind: 'complete', name: 'PLAN_COMPLETE', source: 'complete-1' });
    expect(decide([ITEM.bailout(1)])).toEqual({ kind: 'bailout', reason: 'tired 1', source: 'bailout-1' });
    expect(decide([ITEM.failed(1)])).toEqual({ kind: 'failed', name: 'TEST_FAILED', args: ['web', '1'], reason: expect.stringContaining('TEST_FAILED'), source: 'failed-1' });
    expect(decide([ITEM.blocked(1)])).toEqual({ kind: 'blocked', reason: 'no key 1', source: 'blocked-1' });
  });

  // Every non-empty combination of classes, in every order, each class present twice (interleaved):
  // the highest class present wins, and within it the later item.
  const rows: [string, Weighed[], SignalClass, string][] = [];
  for (let mask = 1; mask < 16; mask++) {
    const classes = RANK.filter((_, i) => mask & (1 << i));
    for (const order of permutations(classes)) {
      const items = [...order.map((c) => ITEM[c](1)), ...order.map((c) => ITEM[c](2))];
      const top = RANK.find((c) => classes.includes(c))!;
      rows.push([order.join(' > '), items, top, `${top}-2`]);
    }
  }

  it('the table covers all 64 orderings of the 15 class combinations', () => {
    expect(rows).toHaveLength(64);
  });

  it.each(rows)('%s → %s', (_, items, kind, source) => {
    expect(decide(items)).toMatchObject({ kind, source });
  });

  const literal: [what: string, items: Weighed[], expected: Record<string, unknown>][] = [
    ['blocked beats a later complete', [ITEM.blocked(1), ITEM.complete(2)], { kind: 'blocked', source: 'blocked-1' }],
    ['failed beats a later bailout', [ITEM.failed(1), ITEM.bailout(2)], { kind: 'failed', source: 'failed-1' }],
    ['bailout beats an earlier complete', [ITEM.complete(1), ITEM.bailout(2)], { kind: 'bailout', source: 'bailout-2' }],
    ['the last of three bailouts', [ITEM.bailout(1), ITEM.bailout(2), ITEM.bailout(3)], { kind: 'bailout', reason: 'tired 3' }],
    [
      'a file claim after an output signal of the same class wins',
      [ITEM.complete(1), { class: 'complete', name: 'TASK_COMPLETE', args: [], source: 'TASK_COMPLETE' }],
      { kind: 'complete', name: 'TASK_COMPLETE', source: 'TASK_COMPLETE' },
    ],
    [
      'a BLOCKED.md claim beats an output PLAN_COMPLETE',
      [ITEM.complete(1), { class: 'blocked', name: 'BLOCKED.md', args: ['waiting on legal'], source: 'BLOCKED.md' }],
      { kind: 'blocked', reason: 'waiting on legal', source: 'BLOCKED.md' },
    ],
    [
      'failed: the last of several failed names wins, with its arguments',
      [{ class: 'failed', name: 'BUILD_FAILED', args: ['api'], source: 'stdout' }, { class: 'failed', name: 'PLAN_FAILED', args: ['lint'], source: 'stderr' }],
      { kind: 'failed', name: 'PLAN_FAILED', args: ['lint'], source: 'stderr' },
    ],
  ];
  it.each(literal)('%s', (_, items, expected) => {
    expect(decide(items)).toMatchObject(expected);
  });

  it('does not change its input', () => {
    const items = [ITEM.complete(1), ITEM.blocked(1)];
    const copy = structuredClone(items);
    decide(items);
    expect(items).toEqual(copy);
  });
});
