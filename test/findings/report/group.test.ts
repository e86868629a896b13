import { describe, expect, it } from 'vitest';
import { FindingGrouper, normaliseTitle } from '../../../src/findings/report/group.js';
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
