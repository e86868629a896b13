import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LineSplitter, type SplitItem } from '../../../src/executors/command/line-splitter.js';

const lines = (items: SplitItem[]): string[] =>
  items.map((i) => (i.kind === 'line' ? i.bytes.toString('utf8') : `<dropped ${i.bytes}>`));

describe('LineSplitter', () => {
  it('returns whole lines with their line ends, across chunk boundaries', () => {
    const s = new LineSplitter(1024);
    expect(lines(s.push(Buffer.from('{"a":1}\n{"b"')))).toEqual(['{"a":1}\n']);
    expect(s.pending).toBe(true);
    expect(lines(s.push(Buffer.from(':2}\r\n\n')))).toEqual(['{"b":2}\r\n', '\n']);
    expect(s.pending).toBe(false);
    expect(lines(s.end())).toEqual([]);
  });

  it('hands out the last line when the stream ends without a line end', () => {
    const s = new LineSplitter(1024);
    expect(s.push(Buffer.from('tail'))).toEqual([]);
    expect(lines(s.end())).toEqual(['tail']);
  });

  it('drops a line over the limit, counting its bytes, and carries on with the next', () => {
    const s = new LineSplitter(10);
    const out = [
      ...s.push(Buffer.from('short\n0123456')),
      ...s.push(Buffer.from('789abcdef')),
      ...s.push(Buffer.from('XYZ\nok\n')),
    ];
    expect(lines(out)).toEqual(['short\n', '<dropped 20>', 'ok\n']);
  });

  it('keeps a line of exactly the limit', () => {
    const s = new LineSplitter(4);
    expect(lines(s.push(Buffer.from('abc\n')))).toEqual(['abc\n']);
  });

  it('holds no more than the limit while a huge line streams through', () => {
    const s = new LineSplitter(1024);
    const piece = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 64; i++) expect(s.push(piece)).toEqual([]);
    // Nothing of the 4 MiB line is kept: only its length.
    expect((s as unknown as { held: number }).held).toBe(0);
    expect(lines(s.push(Buffer.from('\n')))).toEqual([`<dropped ${64 * 64 * 1024 + 1}>`]);
  });

  it('gives the same lines whatever the chunking (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 30 }), { maxLength: 20 }), fc.array(fc.nat(60), { maxLength: 20 }), (texts, cuts) => {
        const input = Buffer.from(texts.map((t) => `${t}\n`).join(''));
        const s = new LineSplitter(1 << 20);
        const out: SplitItem[] = [];
        let at = 0;
        for (const cut of cuts) {
          const end = Math.min(input.length, at + cut);
          out.push(...s.push(input.subarray(at, end)));
          at = end;
        }
        out.push(...s.push(input.subarray(at)), ...s.end());
        expect(Buffer.concat(out.map((i) => (i.kind === 'line' ? i.bytes : Buffer.alloc(0)))).equals(input)).toBe(true);
        expect(out.length).toBe(input.toString().split('\n').length - 1);
      }),
    );
  });
});
