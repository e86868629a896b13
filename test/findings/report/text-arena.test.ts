import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHUNK, TextArena } from '../../../src/findings/report/text-arena.js';
import { FindingGrouper } from '../../../src/findings/report/group.js';
import type { FindingRecord } from '../../../src/findings/report/types.js';

describe('TextArena', () => {
  it('gives back every text written or copied, across chunks, before and after sealing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ maxLength: 50 }), fc.string({ unit: 'grapheme', maxLength: 20 }), fc.constantFrom('x'.repeat(CHUNK - 3), 'é'.repeat(CHUNK / 2 + 5))), { maxLength: 40 }),
        fc.array(fc.boolean(), { maxLength: 40 }),
        (texts, copied) => {
          const arena = new TextArena();
          const spans = texts.map((t, i) => {
            if (copied[i]) {
              const bytes = Buffer.from(`[${t}]`);
              const at = arena.copy(bytes, 1, bytes.length - 1);
              return { at, length: arena.appended, t };
            }
            const at = arena.write(t);
            return { at, length: arena.appended, t };
          });
          for (const s of spans) expect(arena.text(s.at, s.length)).toBe(Buffer.from(s.t).toString());
          arena.seal();
          // Read often enough that chunks are read as whole strings too.
          for (let k = 0; k < 3; k++) for (const s of spans) expect(arena.text(s.at, s.length)).toBe(Buffer.from(s.t).toString());
        },
      ),
      { numRuns: 40 },
    );
  });

  it('reads a text overwritten after sealing as it is now', () => {
    const arena = new TextArena();
    const spans = Array.from({ length: 600 }, (_, i) => ({ at: arena.write(`text ${i}`), length: arena.appended }));
    arena.seal();
    for (const s of spans) arena.text(s.at, s.length);
    expect(arena.text(spans[7]!.at, spans[7]!.length)).toBe('text 7');
    expect(arena.overwrite(spans[7]!.at, spans[7]!.length, 'TEXT 7')).toBe(6);
    expect(arena.text(spans[7]!.at, 6)).toBe('TEXT 7');
    expect(arena.overwrite(spans[8]!.at, spans[8]!.length, 'é é é')).toBe(-1);
    expect(arena.overwrite(spans[8]!.at, spans[8]!.length, 'é-8')).toBe(4);
    expect(arena.text(spans[8]!.at, 4)).toBe('é-8');
    expect(arena.text(spans[9]!.at, spans[9]!.length)).toBe('text 9');
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
    expect(g.textBytes).toBeLessThan(4 * CHUNK);
  });
});
