import { readFile, writeFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { linkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolError, runTextEditor } from '../../../../src/executors/anthropic/tools/text-editor.js';
import { scratchDir } from '../helpers.js';

let scratch: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  scratch = await scratchDir();
});
afterEach(() => scratch.cleanup());

const file = (name: string): string => join(scratch.dir, name);

describe('text editor edge cases', () => {
  it('inserts into a file without a final newline, and keeps it that way', async () => {
    await writeFile(file('a'), 'one\ntwo');
    await runTextEditor(scratch.dir, { command: 'insert', path: 'a', insert_line: 2, insert_text: 'three' });
    expect(await readFile(file('a'), 'utf8')).toBe('one\ntwo\nthree');
  });

  it('refuses an insert line past the end', async () => {
    await writeFile(file('a'), 'one\n');
    await expect(runTextEditor(scratch.dir, { command: 'insert', path: 'a', insert_line: 5, insert_text: 'x' })).rejects.toThrow(/outside 0\.\.1/);
  });

  it('treats overlapping matches as more than one', async () => {
    await writeFile(file('a'), 'aaa\n');
    await expect(runTextEditor(scratch.dir, { command: 'str_replace', path: 'a', old_str: 'aa', new_str: 'b' })).rejects.toThrow(/appears 2 times/);
  });

  it('deletes text when new_str is left out', async () => {
    await writeFile(file('a'), 'keep drop keep\n');
    await runTextEditor(scratch.dir, { command: 'str_replace', path: 'a', old_str: ' drop' });
    expect(await readFile(file('a'), 'utf8')).toBe('keep keep\n');
  });

  it('says what is wrong with a missing file, a binary file and a bad range', async () => {
    await writeFile(file('bin'), Buffer.from([0, 1, 2]));
    await writeFile(file('a'), 'x\n');
    await expect(runTextEditor(scratch.dir, { command: 'view', path: 'nope' })).rejects.toThrow(/does not exist/);
    await expect(runTextEditor(scratch.dir, { command: 'view', path: 'bin' })).rejects.toThrow(/binary/);
    await expect(runTextEditor(scratch.dir, { command: 'view', path: 'a', view_range: [3, 4] })).rejects.toThrow(ToolError);
    await expect(runTextEditor(scratch.dir, { command: 'view', path: 'a', view_range: 'all' })).rejects.toThrow(/two integers/);
  });

  it('bounds a huge view and says how to see the rest', async () => {
    await writeFile(file('big'), 'line of text\n'.repeat(20_000));
    const out = await runTextEditor(scratch.dir, { command: 'view', path: 'big' });
    expect(out.length).toBeLessThan(61_000);
    expect(out).toMatch(/output truncated/);
    expect(out).toContain(' 20000\tline of text');
  });
});

describe('text editor and files that are not its own (docs/hostile.md)', () => {
  it('refuses to write a file with a second hard link (it may be a file outside the working directory)', async () => {
    const other = await scratchDir();
    const outside = join(other.dir, 'outside.txt');
    await writeFile(outside, 'precious\n');
    linkSync(outside, file('inside.txt'));
    for (const input of [
      { command: 'create', path: 'inside.txt', file_text: 'overwritten\n' },
      { command: 'str_replace', path: 'inside.txt', old_str: 'precious', new_str: 'changed' },
      { command: 'insert', path: 'inside.txt', insert_line: 0, new_str: 'added' },
    ]) {
      await expect(runTextEditor(scratch.dir, input as never)).rejects.toThrow(/hard links/);
    }
    expect(await readFile(outside, 'utf8')).toBe('precious\n');
    await other.cleanup();
  });

  it('a FIFO is neither read nor written, and nothing blocks', async () => {
    execFileSync('mkfifo', [file('pipe')]);
    await expect(runTextEditor(scratch.dir, { command: 'view', path: 'pipe' } as never)).rejects.toThrow(/not a regular file/);
    await expect(runTextEditor(scratch.dir, { command: 'create', path: 'pipe', file_text: 'x' } as never)).rejects.toThrow(/FIFO|not a regular file/);
  });
});
