// A transcript as the page and `ralph logs` show it: the agent's words apart from its tools and
// their output, escape sequences gone, memory bounded whatever the agent wrote.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TranscriptReader } from '../../src/serve/transcript-items.js';
import { formatItem } from '../../src/serve/print-logs.js';

const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'streams', 'claude-sample.ndjson');

describe('TranscriptReader', () => {
  it('reads a claude-json stream into words, tool calls and tool output, chunk boundaries anywhere', () => {
    const bytes = readFileSync(FIXTURE);
    const whole = new TranscriptReader('claude-json');
    const expected = [...whole.push(bytes), ...whole.end()];
    const kinds = expected.map((i) => i.kind);
    expect(kinds).toContain('words');
    expect(expected.filter((i) => i.kind === 'tool').map((i) => i.text)).toEqual(['Read(/home/dev/widgets/src/greeting.ts)', 'Bash(npm test -- greeting)']);
    expect(expected.find((i) => i.kind === 'words')!.text).toBe("I'll start with Task 1: reading the current greeting module.");
    // The failed tool's output is output, not the agent's words.
    expect(expected.some((i) => i.kind === 'output' && i.text.includes('1 test failed'))).toBe(true);
    expect(expected.some((i) => i.kind === 'words' && i.text.includes('1 test failed'))).toBe(false);
    // Byte by byte, the same items.
    const slow = new TranscriptReader('claude-json');
    const items = [];
    for (let i = 0; i < bytes.length; i += 7) items.push(...slow.push(bytes.subarray(i, i + 7)));
    items.push(...slow.end());
    expect(items).toEqual(expected);
  });

  it('shows text lines as words, without escape sequences', () => {
    const r = new TranscriptReader('text');
    const items = [...r.push(Buffer.from('hello \x1b[31mred\x1b[0m\n\x1b]52;c;Zm9v\x07<script>alert(1)</script>\npartial')), ...r.end()];
    expect(items).toEqual([
      { kind: 'words', text: 'hello red' },
      { kind: 'words', text: '<script>alert(1)</script>' },
      { kind: 'words', text: 'partial' },
    ]);
    expect(items.map(formatItem).join('')).toBe('hello red\n<script>alert(1)</script>\npartial\n');
  });

  it('turns a 10 MB line into a note of its length, holding at most the line bound', () => {
    const r = new TranscriptReader('text');
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    const items = [];
    for (let i = 0; i < 10; i++) items.push(...r.push(chunk));
    items.push(...r.push(Buffer.from('\nafter\n')));
    expect(items).toEqual([
      { kind: 'note', text: `[a line of ${10 * 1024 * 1024 + 1} bytes, too long to show]` },
      { kind: 'words', text: 'after' },
    ]);
  });

  it('cuts a long item to its bound', () => {
    const r = new TranscriptReader('text');
    const [item] = r.push(Buffer.from(`${'y'.repeat(10_000)}\n`));
    expect(item!.text).toBe(`${'y'.repeat(4000)} … (6000 more characters)`);
  });
});
