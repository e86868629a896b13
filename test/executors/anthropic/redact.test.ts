import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { REDACTED, createRedactor } from '../../../src/executors/anthropic/redact.js';

const KEY = 'sk-ant-test-SECRET123';

/** Cuts a text at the given points (as fractions of its length). */
function cut(text: string, points: number[]): string[] {
  const at = [...new Set(points.map((p) => Math.floor(p * text.length)))].sort((a, b) => a - b);
  const parts: string[] = [];
  let from = 0;
  for (const i of at) {
    parts.push(text.slice(from, i));
    from = i;
  }
  parts.push(text.slice(from));
  return parts;
}

describe('redaction', () => {
  it('scrubs every occurrence in a whole text', () => {
    expect(createRedactor(KEY).scrub(`a ${KEY} b ${KEY}`)).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  it('does nothing without a (plausible) secret', () => {
    expect(createRedactor('').scrub('sk-ant')).toBe('sk-ant');
    expect(createRedactor('abc').scrub('abc')).toBe('abc');
  });

  it('scrubs a streamed text however it is cut, and loses nothing else', () => {
    const piece = fc.constantFrom('sk-', 'ant', 'sk-ant-test', KEY, 's', ' ', 'x\n', 'SECRET123', '-');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 8 }), (pieces, points) => {
        const text = pieces.join('');
        const stream = createRedactor(KEY).stream();
        const out = cut(text, points).map((c) => stream.push(c)).join('') + stream.flush();
        expect(out).not.toContain(KEY);
        expect(out).toBe(text.split(KEY).join(REDACTED));
      }),
    );
  });

  it('holds back only what could start the key', () => {
    const stream = createRedactor(KEY).stream();
    expect(stream.push('hello world')).toBe('hello world');
    expect(stream.push('see sk-an')).toBe('see ');
    expect(stream.push('d more')).toBe('sk-and more');
    expect(stream.flush()).toBe('');
  });
});
