import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forEachLine } from '../../../src/findings/report/line-reader.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ralph-lines-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function collect(content: string | Buffer, max?: number): Promise<Array<string | number>> {
  const file = join(dir, `f-${Math.random().toString(36).slice(2)}`);
  await writeFile(file, content);
  const out: Array<string | number> = [];
  forEachLine(file, { line: (t) => out.push(t), tooLong: (_n, chars) => out.push(chars) }, max);
  return out;
}

describe('forEachLine', () => {
  it('splits LF and CRLF, keeps a last line without newline, strips a BOM', async () => {
    expect(await collect('\ufeffa\r\nb\n\nc')).toEqual(['a', 'b', '', 'c']);
  });

  it('keeps multi-byte characters split across read chunks intact', async () => {
    const line = 'é€😀'.repeat(400_000); // > 1 MiB read chunk, code points straddle chunk edges
    expect(await collect(`${line}\nnext\n`)).toEqual([line, 'next']);
  });

  it('drops a line past the limit, reporting its size, and carries on', async () => {
    expect(await collect(`short\n${'x'.repeat(3000)}\nafter\n`, 1000)).toEqual(['short', 3000, 'after']);
  });

  it('gives back exactly the lines of any text (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'grapheme' }).filter((s) => !/[\r\n]/.test(s) && !s.startsWith('\ufeff'))), async (lines) => {
        const text = lines.map((l) => `${l}\n`).join('');
        expect(await collect(text)).toEqual(lines);
      }),
      { numRuns: 50 },
    );
  });
});
