import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteOutput } from '../../../src/findings/report/byte-output.js';
import { createRecordScanner } from '../../../src/findings/report/record-scan.js';
import { bufferMemory } from '../../../src/findings/report/report-memory.js';
import { TextArena } from '../../../src/findings/report/text-arena.js';
import { FindingGrouper } from '../../../src/findings/report/group.js';
import type { FindingRecord } from '../../../src/findings/report/types.js';

describe('TextArena', () => {
  // Both kinds of memory: the scanner's (grown in place) and a plain buffer (copied as it grows).
  const memories = { wasm: () => createRecordScanner()!.memory, buffer: () => bufferMemory(64) };
  for (const [kind, memory] of Object.entries(memories)) {
    it(`gives back every text written or copied as its memory grows (${kind})`, () => {
      fc.assert(
        fc.property(fc.array(fc.oneof(fc.string({ maxLength: 50 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constant('x'.repeat(70_000))), { maxLength: 30 }), fc.array(fc.boolean(), { maxLength: 30 }), (texts, copied) => {
          const m = memory();
          m.ensure(200_000);
          // Copies come from below the arena, as the scanner's log is.
          const arena = new TextArena(m, 200_000);
          const spans = texts.map((t, i) => {
            if (copied[i]) {
              const n = m.u8.write(t.slice(0, 60_000), 100);
              return { at: arena.copy(100, n), length: arena.appended, t: t.slice(0, 60_000) };
            }
            return { at: arena.write(t), length: arena.appended, t };
          });
          for (const s of spans) expect(arena.text(s.at, s.length)).toBe(Buffer.from(s.t).toString());
          const out = new ByteOutput(m, arena.top);
          for (const s of spans) out.copy(s.at, s.length);
          expect(Buffer.from(out.take()).toString()).toBe(spans.map((s) => Buffer.from(s.t).toString()).join(''));
          for (const s of spans) expect(arena.text(s.at, s.length)).toBe(Buffer.from(s.t).toString());
        }),
        { numRuns: 30 },
      );
    });
  }

  it('writes pieces again and again, kept while there is room and encoded each time after', () => {
    const m = bufferMemory();
    const out = new ByteOutput(m, 0);
    // 600 KB pieces: the first fits the room kept for pieces (1 MB), the next do not.
    const texts = ['a'.repeat(600_000), `é${'b'.repeat(600_000)}`, 'c'.repeat(600_000), ',"runs":["r1"]'];
    const pieces = texts.map((t) => out.piece(t));
    expect(pieces.map((p) => p.at >= 0)).toEqual([true, false, false, true]);
    for (const p of [...pieces, ...pieces]) out.put(p);
    expect(Buffer.from(out.take()).toString()).toBe([...texts, ...texts].join(''));
  });

  it('writes over a text in place only when the new one fits', () => {
    const arena = new TextArena(bufferMemory(), 0);
    const seven = arena.write('text 7');
    const eight = arena.write('text 8');
    expect(arena.overwrite(seven, 6, 'TEXT 7')).toBe(6);
    expect(arena.text(seven, 6)).toBe('TEXT 7');
    expect(arena.overwrite(eight, 6, 'é é é')).toBe(-1);
    expect(arena.overwrite(eight, 6, 'é-8')).toBe(4);
    expect(arena.text(eight, 4)).toBe('é-8');
  });
});

describe('FindingGrouper text', () => {
  const finding = (i: number, detail: string): FindingRecord => ({
    run: `r${i % 3}`,
    plan: 'p',
    iteration: 1,
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    type: 'bug',
    severity: 'low',
    title: 'The same finding',
    detail,
    file: i % 2 === 0 ? 'src/a.ts' : './src/a.ts',
    action: 'none',
  });

  it('groups the same with room reserved ahead, too little or too much, as without', () => {
    const records = Array.from({ length: 5_000 }, (_, i) => ({ ...finding(i, `detail ${i}`), title: `Finding ${i % 1_700}`, severity: (['low', 'high'] as const)[i % 2]! }));
    const grouped = (reserve: number | undefined) => {
      const g = new FindingGrouper();
      if (reserve !== undefined) g.reserve(reserve);
      for (const r of records) g.add(r);
      return g.groups();
    };
    const plain = grouped(undefined);
    expect(plain).toHaveLength(1_700);
    expect(grouped(10)).toEqual(plain);
    expect(grouped(1_000_000)).toEqual(plain);
  });

  it('does not pile up text replaced by longer text: the arena is rewritten', () => {
    const g = new FindingGrouper();
    // Each occurrence is later, so it becomes the one shown, with a longer detail each time (so
    // it cannot take the old one's place).
    let last = '';
    for (let i = 0; i < 6_000; i++) {
      last = `${i} ${'d'.repeat(100 + i)}`;
      g.add(finding(i, last));
    }
    const [only] = g.groups();
    expect(only!.count).toBe(6_000);
    expect(only!.detail).toBe(last);
    expect(only!.lastAt).toBe(finding(5_999, '').at);
    expect(only!.firstAt).toBe(finding(0, '').at);
    // 18 MB of detail went through; what is kept stays within a few times the 1 MB threshold.
    expect(g.textBytes).toBeLessThan(4 << 20);
  });
});
