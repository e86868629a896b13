// docs/signals.md#lines: "a line longer than 1 MiB is cut (the rest counted, not kept) and can never be a
// signal. Memory use never grows with the length of the stream."
import { describe, expect, it } from 'vitest';
import { SignalParser, type ParserEvent } from '../../src/signals/index.js';
import { parseChunks, signalsOf } from './helpers.js';

const MiB = 1024 * 1024;

function inPieces(text: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < text.length; at += size) out.push(text.subarray(at, at + size));
  return out;
}

describe('lines over 1 MiB', () => {
  it('are cut and counted; the next line is read as usual', () => {
    const { events, parser } = parseChunks([`${'x'.repeat(MiB + 100)}\n###PLAN_COMPLETE###\n`]);
    expect(signalsOf(events)).toEqual([{ type: 'signal', line: 2, name: 'PLAN_COMPLETE', args: [] }]);
    expect(parser.cutLines).toBe(1);
    expect(parser.cutBytes).toBe(100);
  });

  it('are counted the same when the long line arrives in many chunks', () => {
    const text = Buffer.from(`first\n${'y'.repeat(3 * MiB)}\n###BLOCKED:x###\n`);
    for (const size of [64 * 1024, 1_000_003, 7 * 1024 * 1024]) {
      const { events, parser } = parseChunks(inPieces(text, size));
      expect(signalsOf(events)).toEqual([{ type: 'signal', line: 3, name: 'BLOCKED', args: ['x'] }]);
      expect([parser.cutLines, parser.cutBytes]).toEqual([1, 2 * MiB]);
    }
  });

  it('are never a signal, claim, or ignored signal, in one chunk or many', () => {
    const long = [
      `###BAILOUT:${'r'.repeat(MiB)}###`,
      `${' '.repeat(MiB + 1)}###PLAN_COMPLETE###`,
      `###PLAN_COMPLETE###${' '.repeat(MiB + 1)}`,
      `${'\t'.repeat(MiB)}LOOP_COMPLETE`,
      `\`\`\`\n${' '.repeat(MiB)}###PLAN_COMPLETE###\n\`\`\``,
    ];
    for (const line of long) {
      const text = Buffer.from(`${line}\nafter\n`);
      for (const chunks of [[text], inPieces(text, 4096), inPieces(text, 333_333)]) {
        const { events, parser } = parseChunks(chunks);
        expect(signalsOf(events)).toEqual([]);
        expect(events.filter((e) => e.type === 'malformed')).toEqual([]);
        expect(parser.cutLines).toBe(1);
      }
    }
  });

  it('a signal of exactly 1 MiB is not cut (LF)', () => {
    const sig = `###BAILOUT:${'a'.repeat(MiB - 14)}###`;
    expect(Buffer.byteLength(sig)).toBe(MiB);
    const { events, parser } = parseChunks([`${sig}\n`]);
    expect(events.map((e) => e.type)).toEqual(['signal']);
    expect(parser.cutLines).toBe(0);
  });

  it('a signal of exactly 1 MiB is not cut (CRLF: the line end is not part of the line)', () => {
    const sig = `###BAILOUT:${'a'.repeat(MiB - 14)}###`;
    for (const chunks of [[`${sig}\r\n`], [sig, '\r', '\n']]) {
      const { events, parser } = parseChunks(chunks);
      expect(events.map((e) => e.type)).toEqual(['signal']);
      expect(parser.cutLines).toBe(0);
    }
  });

  it('honours a smaller bound given as an option', () => {
    const { events, parser } = parseChunks(['###BAILOUT:0123456789###\n', '###BAILOUT:01234567890###\n'], { maxLineBytes: 24 });
    expect(signalsOf(events).map((e) => e.line)).toEqual([1]);
    expect([parser.cutLines, parser.cutBytes]).toEqual([1, 1]);
  });

  it('reset() starts the counts over', () => {
    const events: ParserEvent[] = [];
    const p = new SignalParser((e) => events.push(e), { maxLineBytes: 8 });
    p.push('0123456789\n');
    expect([p.cutLines, p.cutBytes]).toEqual([1, 2]);
    p.reset();
    expect([p.cutLines, p.cutBytes]).toEqual([0, 0]);
  });
});

describe('memory stays flat', () => {
  it('over 200 MiB of generated lines, long lines and observations included', () => {
    const lines: string[] = [];
    let signals = 0;
    let i = 0;
    let size = 0;
    while (size < MiB - 4096) {
      let line: string;
      // Mostly prose, as in real transcripts; now and then a line the parser must look at.
      switch (i++ % 400) {
        case 0:
          line = '###BAILOUT:context is getting long###';
          signals++;
          break;
        case 1:
          line = '<observation type="bug" severity="low"><title>t</title>\n<detail>d</detail></observation>';
          break;
        case 2:
          line = '```bash\n###PLAN_COMPLETE###\n```';
          break;
        default:
          line = i % 3 === 0 ? `  at Object.<anonymous> (/home/dev/widgets/test/bucket-${i}.test.ts:41:17)` : `Reading src/file-${i}.ts to see how refill is computed; running npm test now.`;
      }
      lines.push(line);
      size += Buffer.byteLength(line) + 1;
    }
    const chunk = Buffer.from(`${lines.join('\n')}\n`);
    const long = Buffer.alloc(MiB, 0x7a);
    let seen = 0;
    const p = new SignalParser((e) => {
      if (e.type === 'signal') seen++;
    });
    // Ragged chunk boundaries: the generated block is fed in three uneven pieces.
    const pieces = [chunk.subarray(0, 1000), chunk.subarray(1000, 700_001), chunk.subarray(700_001)];
    let blocks = 0;
    let longLines = 0;
    const feedBlock = () => {
      pieces.forEach((piece) => p.push(piece));
      blocks++;
      if (blocks % 20 === 0) {
        // A 3 MiB line in three chunks, every twentieth block.
        p.push(long);
        p.push(long);
        p.push(long);
        p.push('\n');
        longLines++;
      }
    };
    // Warm up (the line buffer reaches its bound, the heap its working size), then measure.
    while (blocks < 20) feedBlock();
    const before = process.memoryUsage().rss;
    while (blocks < 220) feedBlock();
    p.end();
    const grown = process.memoryUsage().rss - before;
    expect(grown).toBeLessThan(32 * MiB);
    expect(p.cutLines).toBe(longLines);
    expect(p.cutBytes).toBe(longLines * 2 * MiB);
    expect(seen).toBe(signals * blocks);
  });
});
