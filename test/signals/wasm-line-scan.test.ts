// The WebAssembly scanner must stop exactly where the JavaScript skip stops, with the same counts,
// wherever the chunk ends inside its 16-byte loads and whatever stale bytes lie past the end.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { skipQuietLines, skipQuietLinesWasm, type LineSkip } from '../../src/signals/quiet-lines.js';
import { createWasmLineScan, SCAN_CAPACITY } from '../../src/signals/wasm-line-scan.js';

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
        fc.string({ unit, maxLength: 120 }),
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
});
