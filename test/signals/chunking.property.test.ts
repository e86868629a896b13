// docs/signals.md#lines: "A signal may arrive split across any number of stream chunks; CRLF and LF are
// both line ends." Whatever the chunking, the parser must see exactly what it sees in one piece.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SignalParser, type ParserEvent, type SignalParserOptions } from '../../src/signals/index.js';
import { parseChunks, splitAt } from './helpers.js';

const word = fc.stringMatching(/^[A-Za-z0-9 _.:\-é✓日]{1,12}$/);

const line: fc.Arbitrary<string> = fc.oneof(
  // valid signals
  fc.constant('###PLAN_COMPLETE###'),
  word.map((w) => `###BAILOUT:${w}###`),
  word.map((w) => `###TASK_FAILED:${w}###`),
  word.map((w) => `###PLAN_FAILED:${w}###`),
  word.map((w) => `###BUILD_FAILED:${w}###`),
  fc.tuple(word, fc.integer({ min: -5, max: 500 })).map(([w, n]) => `###TEST_FAILED:${w}:${n}###`),
  word.map((w) => `###BLOCKED:${w}###`),
  fc.constant('LOOP_COMPLETE'),
  // with blanks around
  fc.tuple(fc.constantFrom('', ' ', '\t', '  \t'), fc.constantFrom('###PLAN_COMPLETE###', 'LOOP_COMPLETE', '###BLOCKED:x###'), fc.constantFrom('', ' ', '\t')).map(
    ([a, s, b]) => `${a}${s}${b}`,
  ),
  // malformed and plain
  fc.constantFrom('######', '###plan_complete###', '###BAILOUT###', '###BAILOUT:a#b###', '###TEST_FAILED:x:y###', '###PLAN_COMPLETE:x###'),
  word.map((w) => `say ###BAILOUT:${w}### later`),
  // fences
  fc.constantFrom('```', '~~~', '````', '```ts', '~~~~ info', '   ```', '    ```', '``', '``` a`b'),
  // observations, whole or in pieces
  fc.constantFrom(
    '<observation type="bug" severity="high"><title>T</title><detail>D &amp; E</detail><file>a.ts</file></observation>',
    'text <observation type="stub" severity="low"><title>A</title><detail>B</detail></observation> and <observation type="x" severity="low"></observation>',
    '<observation type="insight" severity="info">',
    '<observation/>',
    '<title>t</title>',
    '<detail>d</detail>',
    '</observation>',
    '</observation> after',
  ),
  // random text, any Unicode
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom('#', ':', '`', '~', '<', '>', '/', ' ', '\r', 'L', 'x'), maxLength: 30 }),
);

const transcript = fc
  .tuple(fc.array(fc.tuple(line, fc.constantFrom('\n', '\r\n', '\n', '\r\n', '\r\r\n')), { maxLength: 40 }), fc.option(line))
  .map(([lines, last]) => Buffer.from(lines.map(([l, end]) => l + end).join('') + (last ?? '')));

/** A transcript and cut points into it (byte offsets; duplicates and the ends are fine). */
const split = transcript.chain((bytes) =>
  fc.tuple(fc.constant(bytes), fc.array(fc.nat({ max: Math.max(bytes.length, 1) }), { maxLength: 30 })),
);

function run(chunks: Uint8Array[], options?: SignalParserOptions) {
  const { events, parser } = parseChunks(chunks, options);
  return { events, cutLines: parser.cutLines, cutBytes: parser.cutBytes, line: parser.currentLine };
}

const OPTIONS: (SignalParserOptions | undefined)[] = [undefined, { maxLineBytes: 24, maxObservationBytes: 96 }];

describe('any chunking gives the same events as the whole transcript', () => {
  for (const options of OPTIONS) {
    const label = options ? ` (small bounds ${JSON.stringify(options)})` : '';

    it(`random cut points${label}`, () => {
      fc.assert(
        fc.property(split, ([bytes, cuts]) => {
          expect(run(splitAt(bytes, cuts), options)).toEqual(run([bytes], options));
        }),
        { numRuns: 400 },
      );
    });

    it(`read into fillBuffer() in pieces of any size, as ralph parse reads a file${label}`, () => {
      fc.assert(
        fc.property(transcript, fc.integer({ min: 1, max: 64 }), (bytes, size) => {
          const events: ParserEvent[] = [];
          const parser = new SignalParser((e) => events.push(e), options);
          for (let at = 0; at < bytes.length; at += size) {
            const n = Math.min(size, bytes.length - at);
            bytes.copy(parser.fillBuffer(size), 0, at, at + n);
            parser.pushFilled(n);
          }
          parser.end();
          expect({ events, cutLines: parser.cutLines, cutBytes: parser.cutBytes, line: parser.currentLine }).toEqual(run([bytes], options));
        }),
        { numRuns: 300 },
      );
    });

    it(`one byte at a time${label}`, () => {
      fc.assert(
        fc.property(transcript, (bytes) => {
          expect(run(splitAt(bytes, [...bytes.keys()]), options)).toEqual(run([bytes], options));
        }),
        { numRuns: 100 },
      );
    });
  }

  it('splits inside multi-byte characters and between \\r and \\n, at every point', () => {
    const text = Buffer.from('é✓\r\n###BAILOUT:日本語 ✓###\r\n```\r\n###BLOCKED:é###\r\n```\r\n<observation type="bug" severity="low"><title>✓</title>\r\n<detail>日</detail></observation>\r\nLOOP_COMPLETE\r\n###TEST_FAILED:é:3###\r');
    const whole = run([text]);
    expect(whole.events.map((e) => e.type)).toEqual(['signal', 'ignored', 'observation', 'claim', 'signal']);
    for (let i = 0; i <= text.length; i++) {
      for (let j = i; j <= Math.min(text.length, i + 4); j++) {
        expect(run(splitAt(text, [i, j]))).toEqual(whole);
      }
    }
  });

  it('the generated transcripts do hold every kind of event (the generator is not vacuous)', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(transcript, (bytes) => {
        for (const e of run([bytes]).events) seen.add(e.type);
      }),
      { numRuns: 300, seed: 7 },
    );
    expect([...seen].sort()).toEqual(['claim', 'ignored', 'malformed', 'observation', 'signal']);
  });
});

describe('hostile bytes', () => {
  it('random bytes in random chunks never throw, and split like the whole', () => {
    const bytesAndCuts = fc
      .uint8Array({ maxLength: 400 })
      .chain((b) => fc.tuple(fc.constant(b), fc.array(fc.nat({ max: Math.max(b.length, 1) }), { maxLength: 20 })));
    fc.assert(
      fc.property(bytesAndCuts, ([bytes, cuts]) => {
        expect(run(splitAt(bytes, cuts))).toEqual(run([bytes]));
      }),
      { numRuns: 300 },
    );
  });

  it('invalid UTF-8 around and inside signals never throws', () => {
    const bad = [Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xe2, 0x9c]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf8, 0x88, 0x80, 0x80, 0x80])];
    for (const b of bad) {
      const text = Buffer.concat([Buffer.from('###BAILOUT:'), b, Buffer.from('###\n'), b, Buffer.from('\n<observation type="bug" severity="low"><title>'), b, Buffer.from('</title><detail>d</detail></observation>\n')]);
      const p = new SignalParser(() => {});
      expect(() => {
        p.push(text);
        p.end();
      }).not.toThrow();
      const whole = run([text]);
      expect(whole.events.map((e) => e.type)).toEqual(['signal', 'observation']);
      for (let i = 0; i <= text.length; i++) expect(run(splitAt(text, [i]))).toEqual(whole);
    }
  });
});
