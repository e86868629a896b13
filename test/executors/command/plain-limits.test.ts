import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PlainLimits } from '../../../src/executors/command/plain-limits.js';
import { LIMIT_PHRASES, limitFromPlainLine } from '../../../src/agents/limit-text.js';
import { cutInto } from './helpers.js';

const NOTICES = 'Claude AI usage limit reached|1767225600\nYou\'ve hit your limit · resets 3am\nAPI Error: 529 {"type":"overloaded_error"}\n';

function kinds(chunks: string[]): string[] {
  const p = new PlainLimits();
  return [...chunks.flatMap((c) => p.push(c)), ...p.end()].map((e) => (e.type === 'limit' ? e.kind : e.type));
}

describe('PlainLimits', () => {
  it('finds each CLI notice among many ordinary lines, and only those', () => {
    const filler = Array.from({ length: 500 }, (_, i) => `step ${i}: we are within the limits of this API; no error\n`).join('');
    expect(kinds([`${filler}${NOTICES}${filler}`])).toEqual(['usage', 'usage', 'overloaded']);
    expect(kinds([filler])).toEqual([]);
  });

  it('finds the same notices whatever the chunking (property)', () => {
    const stream = `intro line\nlimit of patience\n${NOTICES}tail without end`;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 30 }), { maxLength: 30 }), (cuts) => {
        const chunks = cutInto(stream, cuts);
        expect(kinds(chunks)).toEqual(['usage', 'usage', 'overloaded']);
      }),
      { numRuns: 200 },
    );
  });

  // Claude Code's words for extra usage name neither a limit nor an API error: every line is read.
  it("Claude Code's 'You're out of extra usage · resets 9pm' is a usage limit, in a chunk of its own", () => {
    expect(kinds(["You're out of extra usage · resets 9pm\n"])).toEqual(['usage']);
    expect(kinds(['working…\n', "You're out of extra usage · resets 9pm\n", 'bye\n'])).toEqual(['usage']);
  });

  // The pre-scan's words and the recognised notices are kept in step: no notice is passed over.
  it('every phrase example that text mode recognises is found by PlainLimits as one line', () => {
    const plain = LIMIT_PHRASES.map((p) => p.example).filter((e) => limitFromPlainLine(e) !== undefined);
    expect(plain.length).toBeGreaterThan(3);
    for (const line of plain) expect(kinds([`${line}\n`]), line).toHaveLength(1);
  });
});
