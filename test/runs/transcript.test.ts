import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Transcript } from '../../src/runs/transcript.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'ralph-transcript-'));
  dirs.push(d);
  return d;
};

describe('the transcript cap (docs/hostile.md)', () => {
  it('keeps everything up to the cap, untouched', () => {
    const path = join(temp(), '1.log');
    const t = new Transcript(path, 100);
    t.write('a'.repeat(60));
    t.write(Buffer.from('b'.repeat(40)));
    expect(t.close()).toEqual({ totalBytes: 100, droppedBytes: 0, maxBytes: 100 });
    expect(readFileSync(path, 'utf8')).toBe('a'.repeat(60) + 'b'.repeat(40));
    expect(existsSync(`${path}.tail`)).toBe(false);
  });

  it('past the cap: the head, a note of what was dropped, the tail in order (any chunking)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 64 }), fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 30 }), (max, sizes) => {
        const path = join(temp(), '1.log');
        const t = new Transcript(path, max);
        let all = '';
        let i = 0;
        for (const size of sizes) {
          const chunk = Array.from({ length: size }, () => String.fromCharCode(97 + (i++ % 26))).join('');
          all += chunk;
          t.write(chunk);
        }
        const summary = t.close();
        const text = readFileSync(path, 'utf8');
        const head = Math.floor(max / 2);
        const tail = max - head;
        expect(summary.totalBytes).toBe(all.length);
        if (all.length <= max) {
          expect(text).toBe(all);
          expect(summary.droppedBytes).toBe(0);
        } else {
          const dropped = all.length - max;
          expect(summary.droppedBytes).toBe(dropped);
          expect(text.startsWith(all.slice(0, head))).toBe(true);
          expect(text.endsWith(all.slice(all.length - tail))).toBe(true);
          expect(text).toContain(`[ralph: ${dropped} bytes of output dropped here`);
        }
        expect(existsSync(`${path}.tail`)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});

describe('the transcript is written in chunks (docs/files.md#transcripts)', () => {
  it("gathers small pieces and writes them at the end of the event loop's turn, whole and in order, without waiting for close", async () => {
    const path = join(temp(), '1.log');
    const t = new Transcript(path);
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`);
    for (const line of lines) t.write(Buffer.from(line));
    // Nothing is written a line at a time: what is gathered waits for the turn to end (or 64 KiB).
    expect(statSync(path).size).toBeLessThan(lines.join('').length);
    expect(lines.join('').startsWith(readFileSync(path, 'utf8'))).toBe(true);
    await new Promise((r) => setImmediate(r));
    // A ralph killed now (SIGKILL) leaves all of it.
    expect(readFileSync(path, 'utf8')).toBe(lines.join(''));
    t.write('last');
    expect(t.close().totalBytes).toBe(lines.join('').length + 4);
    expect(readFileSync(path, 'utf8')).toBe(`${lines.join('')}last`);
  });

  it('a piece larger than the gathering buffer goes straight through, after what was gathered', () => {
    const path = join(temp(), '1.log');
    const t = new Transcript(path);
    const big = 'b'.repeat(200 * 1024);
    t.write('small ');
    t.write(big);
    expect(readFileSync(path, 'utf8')).toBe(`small ${big}`);
    t.close();
  });
});

