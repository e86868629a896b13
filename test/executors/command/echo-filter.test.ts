import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EchoFilter } from '../../../src/executors/command/echo-filter.js';
import { cutInto } from './helpers.js';

const PROMPT = '# How ralph runs this plan\n\nPrint ###PLAN_COMPLETE### when done.\n```\n<observation type="blocker">\n```\nStart with the first task.\n';

function run(prompt: string, chunks: string[]) {
  const f = new EchoFilter(prompt);
  const pieces = [...chunks.flatMap((c) => f.push(Buffer.from(c))), ...f.end()];
  const of = (kind: 'text' | 'log') => pieces.filter((p) => p.kind === kind).map((p) => p.chunk.toString()).join('');
  return { text: of('text'), log: of('log') };
}

describe('EchoFilter', () => {
  it("logs ralph's own prompt echoed back (Codex text mode), and reads what follows", () => {
    const out = run(PROMPT, ['codex banner\nuser\n', PROMPT, '\nthinking\nDone.\n###PLAN_COMPLETE###\n']);
    expect(out.log).toBe(PROMPT);
    expect(out.text).toBe('codex banner\nuser\n\nthinking\nDone.\n###PLAN_COMPLETE###\n');
  });

  it('passes half lines on at once when they cannot be the prompt', () => {
    const f = new EchoFilter(PROMPT);
    expect(f.push(Buffer.from('partial ')).map((p) => [p.kind, p.chunk.toString()])).toEqual([['text', 'partial ']]);
    expect(f.push(Buffer.from('line\n')).map((p) => [p.kind, p.chunk.toString()])).toEqual([['text', 'line\n']]);
  });

  it('an agent line equal to a later prompt line alone is its own', () => {
    expect(run(PROMPT, ['Print ###PLAN_COMPLETE### when done.\n']).text).toBe('Print ###PLAN_COMPLETE### when done.\n');
  });

  it('loses no byte and keeps the order, whatever the chunking (property)', () => {
    const stream = `a\n${PROMPT}b\n###PLAN_COMPLETE###\n`;
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 20 }), (cuts) => {
        const chunks = cutInto(stream, cuts);
        const out = run(PROMPT, chunks);
        expect(out.log).toBe(PROMPT);
        expect(out.text).toBe('a\nb\n###PLAN_COMPLETE###\n');
      }),
      { numRuns: 100 },
    );
  });

  it("hands the agent's lines on in one piece per chunk, not one a line (the transcript is written in chunks)", () => {
    const f = new EchoFilter(PROMPT);
    const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}\n`).join('');
    const pieces = f.push(Buffer.from(`${lines}half a li`));
    expect(pieces.map((p) => p.kind)).toEqual(['text']);
    expect(pieces.map((p) => p.chunk.toString()).join('')).toBe(`${lines}half a li`);
    // An echo inside a chunk splits it: the lines before it, the echo, the lines after it.
    const g = new EchoFilter(PROMPT);
    const out = g.push(Buffer.from(`a\nb\n${PROMPT}c\nd\n`));
    expect(out.map((p) => [p.kind, p.chunk.toString()])).toEqual([
      ['text', 'a\nb\n'],
      ['log', PROMPT],
      ['text', 'c\nd\n'],
    ]);
  });
});
