// The WebAssembly scanner must stop exactly where the JavaScript skip stops, with the same counts,
// wherever the chunk ends inside its 16-byte loads and whatever stale bytes lie past the end.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { skipQuietLines, skipQuietLinesWasm, type LineSkip } from '../../src/signals/quiet-lines.js';
import { byFirstByte } from '../../src/signals/needle.js';
import { createWasmLineScan, SCAN_CAPACITY, TAG } from '../../src/signals/wasm-line-scan.js';

const scanner = createWasmLineScan();

describe.runIf(scanner !== undefined)('the WebAssembly line scanner', () => {
  const wasm = scanner!;

  function both(text: string, from: number, stop: number | undefined, maxLine: number, stale: number) {
    const bytes = Buffer.from(text);
    // What an earlier, longer chunk left behind: line ends the scanner must not take for this chunk's.
    wasm.scratch.fill(stale);
    bytes.copy(wasm.scratch);
    const view = wasm.scratch.subarray(0, bytes.length);
    const pos = Math.min(from, bytes.length);
    const end = stop === undefined ? bytes.length : Math.max(pos, Math.min(stop, bytes.length));
    const js: LineSkip = { lines: -1, lineEnd: -2 };
    const fromWasm: LineSkip = { lines: -1, lineEnd: -2 };
    return {
      js: { at: skipQuietLines(bytes, pos, end, maxLine, js), ...js },
      wasm: { at: skipQuietLinesWasm(wasm, view, pos, end, maxLine, fromWasm), ...fromWasm },
    };
  }

  it.each([
    ['prose\n  code\n\n### Progress\nLet me\n###BLOCKED:x###\nafter\n'],
    ['a\n\t~~~\n'],
    ['a\n````\n'],
    ['a\n``x\nLOOP_COMPLETE\n'],
    ['a\n###  \r\n###PLAN_COMPLETE### \t\r\n'],
    ['unterminated'],
    [`${'x'.repeat(40)}\n${'y'.repeat(17)}\n#`],
  ])('stops where the JavaScript skip stops: %j', (text) => {
    const r = both(text, 0, undefined, 1 << 20, 0x0a);
    expect(r.wasm).toEqual(r.js);
  });

  it('handles a full chunk, up to its last byte', () => {
    const line = 'Reading src/rate-limit/bucket.ts to see how refill is computed.\n';
    const text = line.repeat(Math.ceil(SCAN_CAPACITY / line.length)).slice(0, SCAN_CAPACITY);
    const r = both(text, 0, undefined, 1 << 20, 0x0a);
    expect(r.wasm).toEqual(r.js);
    expect(r.js.lineEnd).toBe(-1);
  });

  const unit = fc.constantFrom('\n', '\n', '#', '#', '`', '~', 'L', 'O', ' ', '\t', '\r', 'x', 'é', '<');
  it('agrees with skipQuietLines on any text, start, stop and bound', () => {
    fc.assert(
      fc.property(
        // Quiet lines first, so that the fast path runs over several 16-byte blocks before the rest.
        fc.tuple(fc.array(fc.constantFrom('Reading the code.\n', 'x\n', '\n', 'é ok, then more prose\r\n'), { maxLength: 12 }), fc.string({ unit, maxLength: 120 })).map(([q, t]) => q.join('') + t),
        fc.nat({ max: 130 }),
        fc.option(fc.nat({ max: 130 })),
        fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(1 << 20), fc.constant(Number.MAX_SAFE_INTEGER)),
        fc.constantFrom(0x0a, 0x23, 0x00),
        (text, from, stop, maxLine, stale) => {
          const r = both(text, from, stop ?? undefined, maxLine, stale);
          expect(r.wasm).toEqual(r.js);
        },
      ),
      { numRuns: 5000 },
    );
  });

  describe('findTag', () => {
    const js = byFirstByte(Buffer.from(TAG));

    function bothFind(text: string, from: number, stale: string) {
      const bytes = Buffer.from(text);
      // Stale bytes past the end hold the tag too: it must not be found there.
      wasm.scratch.fill(Buffer.from(stale));
      bytes.copy(wasm.scratch);
      const view = wasm.scratch.subarray(0, bytes.length);
      const pos = Math.min(from, bytes.length);
      return { js: js(bytes, pos), wasm: wasm.findTag(pos, view.length) };
    }

    it.each([
      ['<observation type="bug">', 0],
      ['at Object.<anonymous> <obs <observatio <observation>', 0],
      ['x'.repeat(15) + '<observation', 0],
      ['x'.repeat(16) + '<observation', 3],
      ['<observation <observation', 1],
      ['<observatio', 0],
      ['', 0],
    ])('finds what the JavaScript search finds: %j from %d', (text, from) => {
      const r = bothFind(text, from, '<observation');
      expect(r.wasm).toBe(r.js);
    });

    const unit = fc.constantFrom('<', '<', 'o', 'b', 's', 'e', 'r', 'v', 'a', 't', 'i', 'n', '<observation', '<observatio', 'x', '\n', 'é');
    it('agrees with the JavaScript search on any text, start and stale memory', () => {
      fc.assert(
        fc.property(fc.string({ unit, maxLength: 200 }), fc.nat({ max: 210 }), fc.constantFrom('<observation', 'n', '<', '\0'), (text, from, stale) => {
          const r = bothFind(text, from, stale);
          expect(r.wasm).toBe(r.js);
        }),
        { numRuns: 5000 },
      );
    });

    // The tag far into the chunk, after near misses: in every 16-byte block of a 64-byte stride.
    const nearMisses = fc.array(fc.constantFrom('x', '\n', 'é', '<', 'o', '<o', '<obs', '<observatio'), { maxLength: 6 }).map((p) => p.join(''));
    it('finds the tag at any distance and alignment', () => {
      fc.assert(
        fc.property(
          fc.nat({ max: 200 }), nearMisses, fc.constantFrom('<observation', ''), nearMisses, fc.nat({ max: 20 }), fc.constantFrom('<observation', '\0'),
          (pad, a, tag, b, from, stale) => {
            const r = bothFind('x'.repeat(pad) + a + tag + b, from, stale);
            expect(r.wasm).toBe(r.js);
          },
        ),
        { numRuns: 5000 },
      );
    });
  });
});
