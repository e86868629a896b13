// The hot loop skips lines without looking closely. A line it calls quiet must really be one that
// the full line reader would ignore, outside and inside a fence.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nearMissShaped, skipQuietLines, type LineSkip } from '../../src/signals/quiet-lines.js';
import { parseText } from './helpers.js';

function skip(text: string, stop?: number, maxLine = 1 << 20): LineSkip & { pos: number } {
  const buf = Buffer.from(text);
  const cr = buf.indexOf('\r');
  const out: LineSkip = { lines: 0, cr: cr === -1 ? buf.length : cr };
  const pos = skipQuietLines(buf, 0, stop ?? buf.length, maxLine, out);
  return { ...out, pos };
}

describe('skipQuietLines', () => {
  it('skips prose and code, and stops at the first line that may matter', () => {
    const text = 'Reading a.ts\n  return x;\n\n### Progress\n- [x] done\nLet me see\n  ###BLOCKED:k###\nafter\n';
    expect(skip(text)).toEqual({ lines: 6, cr: text.length, pos: text.indexOf('  ###BLOCKED') });
  });

  it.each([
    ['###PLAN_COMPLETE###'],
    ['###NOT_A_SIGNAL###'],
    ['\t###BAILOUT:x### \r'],
    ['LOOP_COMPLETE'],
    ['   ```ts'],
    ['~~~'],
    // shaped like a near miss
    ['###plan_complete'],
    ['Done! ###PLAN_COMPLETE###'],
    ['**###PLAN_COMPLETE###**'],
    ['- ###BLOCKED:x###!'],
    ['All done: LOOP_COMPLETE'],
    ['`LOOP_COMPLETE`  \r'],
  ])('stops at %j', (line) => {
    expect(skip(`quiet\n${line}\nquiet\n`)).toMatchObject({ lines: 1, pos: 6 });
  });

  it.each([['### Progress'], ['## Notes ##'], ['say ###PLAN_COMPLETE### later'], ['Looking at LOOP_COMPLETED'], ['x = 1;'], ['a sentence.']])('skips %j', (line) => {
    expect(skip(`quiet\n${line}\nquiet\n`)).toMatchObject({ lines: 3 });
  });

  it('stops at the line holding `stop`, at an over-long line, and before an unterminated tail', () => {
    const text = 'one\ntwo <observation\nthree\n';
    expect(skip(text, text.indexOf('<'))).toMatchObject({ lines: 1, pos: 4 });
    expect(skip('ab\nabcdef\nx\n', undefined, 4)).toMatchObject({ lines: 1, pos: 3 });
    expect(skip('ab\ncd')).toEqual({ lines: 1, cr: 5, pos: 3 });
  });

  it('skips CRLF lines and stops at a line with a lone CR, which ends a line too', () => {
    expect(skip('a\r\nb\r\nc\rd\ne\n')).toEqual({ lines: 2, cr: 7, pos: 6 });
    expect(skip('a\r\r\nb\n')).toEqual({ lines: 0, cr: 1, pos: 0 });
  });

  const line = fc.string({ unit: fc.constantFrom('#', '`', '~', 'L', 'O', ' ', '\t', '\r', 'x', ':', '<', 'P'), maxLength: 16 });

  it('a quiet line changes nothing outside a fence', () => {
    fc.assert(
      fc.property(line, (l) => {
        if (skip(`${l}\n`).lines !== 1) return;
        expect(parseText(`${l}\n###PLAN_COMPLETE###\n`).map((e) => [e.type, e.line])).toEqual([['signal', 2]]);
      }),
      { numRuns: 3000 },
    );
  });

  it('a quiet line changes nothing inside a fence', () => {
    fc.assert(
      fc.property(line, (l) => {
        if (skip(`${l}\n`).lines !== 1) return;
        expect(parseText(`\`\`\`\n${l}\n###PLAN_COMPLETE###\n\`\`\`\n`).map((e) => [e.type, e.line])).toEqual([['ignored', 3]]);
      }),
      { numRuns: 3000 },
    );
  });

  it('a quiet line is never one the parser judges for a near miss (else chunking would change what is reported)', () => {
    const shaped = fc.string({ unit: fc.constantFrom('#', 'L', 'O', 'P', '_', 'C', 'E', '*', '`', '!', '.', '"', ' ', '\t', '\r', 'x'), maxLength: 20 });
    const loopish = fc.tuple(fc.constantFrom('', ' ', '**', '- ', 'x '), fc.constantFrom('LOOP_COMPLETE', '###PLAN_COMPLETE###', '###x'), fc.constantFrom('', '**', '`', '!', ' ', '\r', '.'));
    fc.assert(
      fc.property(fc.oneof(shaped, loopish.map((parts) => parts.join(''))), (l) => {
        if (skip(`${l}\n`).lines !== 1) return;
        const buf = Buffer.from(l);
        let first = 0;
        while (buf[first] === 0x20 || buf[first] === 0x09) first++;
        expect(nearMissShaped(buf, first, buf.length)).toBe(false);
      }),
      { numRuns: 5000 },
    );
  });
});
