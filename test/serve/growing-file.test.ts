// Following events.jsonl line by line: a character whose bytes land in two different reads
// (the read size's boundary, or a writer that has written only part of it yet) arrives whole.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LineFollower } from '../../src/serve/growing-file.js';

let dir = '';
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function file(): string {
  dir = mkdtempSync(join(tmpdir(), 'ralph-follow-'));
  return join(dir, 'events.jsonl');
}

describe('LineFollower', () => {
  it('keeps a multi-byte character that straddles the read size intact', () => {
    const path = file();
    // 'é' is C3 A9: with 4-byte reads, C3 ends the first read and A9 starts the second.
    writeFileSync(path, 'abcé\n→ next\n');
    const f = new LineFollower(path, 1024, 4);
    expect(f.readLines()).toEqual(['abcé', '→ next']);
  });

  it('keeps a character written in two appends across a follow', () => {
    const path = file();
    const arrow = Buffer.from('→'); // E2 86 92
    writeFileSync(path, Buffer.concat([Buffer.from('{"t":"'), arrow.subarray(0, 2)]));
    const f = new LineFollower(path);
    expect(f.readLines()).toEqual([]);
    appendFileSync(path, Buffer.concat([arrow.subarray(2), Buffer.from('"}\n\n{"u":1}\n')]));
    expect(f.readLines()).toEqual(['{"t":"→"}', '', '{"u":1}']);
  });

  it('drops a line longer than its bound and goes on with the next', () => {
    const path = file();
    writeFileSync(path, `${'x'.repeat(50)}\nshort\n`);
    const f = new LineFollower(path, 20, 8);
    expect(f.readLines()).toEqual(['short']);
  });
});
