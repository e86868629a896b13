import fc from 'fast-check';
import { ACTIONS, OBSERVATION_TYPES } from '../../../src/contract.js';
import { describe, expect, it } from 'vitest';
import { FindingGrouper } from '../../../src/findings/report/group.js';
import { groupKey, normaliseTitle } from '../../../src/findings/report/group-key.js';
import { timeOf } from '../../../src/findings/report/group.js';
import { severityRank } from '../../../src/findings/report/filters.js';
import type { FindingRecord } from '../../../src/findings/report/index.js';

const rec = (over: Partial<FindingRecord>): FindingRecord => ({
  run: 'r1',
  plan: 'p',
  iteration: 1,
  at: '2026-01-01T00:00:00.000Z',
  type: 'bug',
  severity: 'low',
  title: 't',
  detail: '',
  file: null,
  action: 'none',
  ...over,
});

describe('normaliseTitle', () => {
  it('ignores case, whitespace and punctuation, in ASCII and beyond', () => {
    expect(normaliseTitle('  Null-pointer   in PARSER!! ')).toBe('null pointer in parser');
    expect(normaliseTitle('null pointer in parser')).toBe('null pointer in parser');
    expect(normaliseTitle('Ｆｕｌｌｗｉｄｔｈ — Title…')).toBe('fullwidth title');
    expect(normaliseTitle('Café: «crème»')).toBe('café crème');
    expect(normaliseTitle('a\tb\u00a0c')).toBe('a b c');
  });
});

describe('FindingGrouper', () => {
  it('keeps type and file apart under one title, also past the scan limit', () => {
    const g = new FindingGrouper();
    for (let i = 0; i < 40; i++) {
      g.add(rec({ title: 'TODO', file: `src/f${i}.ts`, run: 'a' }));
      g.add(rec({ title: 'todo.', file: `./src/f${i}.ts`, run: 'b' }));
      g.add(rec({ title: 'TODO', type: 'stub', file: `src/f${i}.ts`, run: 'c' }));
    }
    const groups = g.groups();
    expect(groups).toHaveLength(80);
    expect(groups.every((x) => x.count === (x.type === 'bug' ? 2 : 1))).toBe(true);
    expect(groups.filter((x) => x.type === 'bug').every((x) => x.runs.join() === 'a,b')).toBe(true);
    expect(g.occurrences).toBe(120);
  });

  it('takes the most severe occurrence, then the latest, as the representative', () => {
    const g = new FindingGrouper();
    g.add(rec({ severity: 'high', detail: 'old high', at: '2026-01-01T00:00:00.000Z', action: 'needs-fix' }));
    g.add(rec({ severity: 'high', detail: 'new high', at: '2026-01-03T00:00:00.000Z', action: 'needs-plan', run: 'r2' }));
    g.add(rec({ severity: 'low', detail: 'newest low', at: '2026-01-05T00:00:00.000Z', run: 'r3' }));
    // A time in another format still compares by the instant it names.
    g.add(rec({ severity: 'high', detail: 'offset', at: '2026-01-02T23:00:00+02:00', run: 'r4' }));
    const [only] = g.groups();
    expect(only).toMatchObject({ severity: 'high', detail: 'new high', action: 'needs-plan', count: 4, firstAt: '2026-01-01T00:00:00.000Z', lastAt: '2026-01-05T00:00:00.000Z' });
    expect(only!.runs).toEqual(['r1', 'r2', 'r3', 'r4']);
  });

  it('sorts by severity, type, action, then most seen, then first seen', () => {
    const g = new FindingGrouper();
    g.add(rec({ title: 'once', severity: 'medium' }));
    g.add(rec({ title: 'twice', severity: 'medium' }));
    g.add(rec({ title: 'twice', severity: 'medium' }));
    g.add(rec({ title: 'other action', severity: 'medium', action: 'needs-fix' }));
    g.add(rec({ title: 'stub', severity: 'medium', type: 'stub' }));
    g.add(rec({ title: 'crit', severity: 'critical', type: 'insight' }));
    expect(g.groups().map((x) => x.title)).toEqual(['crit', 'other action', 'twice', 'once', 'stub']);
  });
});

/** The grouping spelled out the slow, obvious way: a Map keyed by groupKey. */
function referenceGroups(records: FindingRecord[]) {
  const groups = new Map<
    string,
    { type: string; count: number; runs: Set<string>; plans: Set<string>; first: number; last: number; bestRank: number; repAt: number; action: string }
  >();
  for (const r of records) {
    const k = groupKey(r.type, r.title, r.file);
    const t = timeOf(r.at);
    const g = groups.get(k) ?? { type: r.type, count: 0, runs: new Set<string>(), plans: new Set<string>(), first: Infinity, last: -Infinity, bestRank: 9, repAt: -Infinity, action: r.action };
    // The representative: the most severe occurrence, the latest among equals, the first among those.
    const rank = severityRank(r.severity);
    if (g.count === 0 || rank < g.bestRank || (rank === g.bestRank && t > g.repAt)) {
      g.repAt = t;
      g.action = r.action;
    }
    g.count += 1;
    g.runs.add(r.run);
    if (r.plan !== '') g.plans.add(r.plan);
    g.first = Math.min(g.first, t);
    g.last = Math.max(g.last, t);
    g.bestRank = Math.min(g.bestRank, rank);
    groups.set(k, g);
  }
  return groups;
}

describe('FindingGrouper against a reference grouping', () => {
  // Few distinct values, so records collide often; titles differ in case, punctuation, spacing
  // and script (fullwidth letters normalise to ASCII), files in ./ and backslashes.
  const title = fc.constantFrom('Null pointer', 'null-POINTER!', '  null pointer ', 'Ｎｕｌｌ ｐｏｉｎｔｅｒ', 'Café crème', 'cafe creme', 'café: crème', 'TODO', '—', 'x');
  const file = fc.constantFrom(null, 'src/a.ts', './src/a.ts', 'src\\a.ts', 'src/b.ts', ' src/b.ts ');
  const at = fc.oneof(
    fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2030, 0, 1) }).map((ms) => new Date(ms).toISOString()),
    fc.constantFrom('2026-01-02T03:00:00+02:00', 'not a time', '', '2026-01-01'),
  );
  const record = fc.record({
    run: fc.constantFrom('r1', 'r2', 'r3', 'r4'),
    plan: fc.constantFrom('', 'alpha', 'beta'),
    at,
    type: fc.constantFrom('bug', 'stub', 'insight') as fc.Arbitrary<FindingRecord['type']>,
    severity: fc.constantFrom('critical', 'high', 'medium', 'low', 'info') as fc.Arbitrary<FindingRecord['severity']>,
    title,
    file,
    action: fc.constantFrom('none', 'needs-fix') as fc.Arbitrary<FindingRecord['action']>,
  });

  it('finds the same groups, counts, runs, plans, times and severities', () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 120 }), (partial) => {
        const records = partial.map((p) => rec(p));
        const g = new FindingGrouper();
        for (const r of records) g.add(r);
        const got = g.groups();
        const want = referenceGroups(records);
        expect(got).toHaveLength(want.size);
        expect(g.occurrences).toBe(records.length);
        for (const x of got) {
          const w = want.get(groupKey(x.type, x.title, x.file))!;
          expect(w).toBeDefined();
          expect(x.count).toBe(w.count);
          expect(x.runs).toEqual([...w.runs].sort());
          expect(x.plans).toEqual([...w.plans].sort());
          expect(timeOf(x.firstAt)).toBe(w.first);
          expect(timeOf(x.lastAt)).toBe(w.last);
          expect(severityRank(x.severity)).toBe(w.bestRank);
          expect(x.action).toBe(w.action);
        }
        // Severity, then type and action in contract order, then most seen, then first seen.
        const order = [...want.entries()]
          .map(([k, w], seen) => ({ k, w, seen }))
          .sort(
            (a, b) =>
              a.w.bestRank - b.w.bestRank ||
              OBSERVATION_TYPES.indexOf(a.w.type as never) - OBSERVATION_TYPES.indexOf(b.w.type as never) ||
              ACTIONS.indexOf(a.w.action as never) - ACTIONS.indexOf(b.w.action as never) ||
              b.w.count - a.w.count ||
              a.seen - b.seen,
          )
          .map((e) => e.k);
        expect(got.map((x) => groupKey(x.type, x.title, x.file))).toEqual(order);
      }),
      { numRuns: 300 },
    );
  });

  it('never lets one group change another\'s shared run list', () => {
    const g = new FindingGrouper();
    g.add(rec({ title: 'a', run: 'r1' }));
    g.add(rec({ title: 'b', run: 'r1' }));
    g.add(rec({ title: 'a', run: 'r2' }));
    g.add(rec({ title: 'a', run: 'r3' }));
    const byTitle = Object.fromEntries(g.groups().map((x) => [x.title, x.runs]));
    expect(byTitle).toEqual({ a: ['r1', 'r2', 'r3'], b: ['r1'] });
  });
});
