import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PathEscapeError, resolveInside } from '../../../../src/executors/anthropic/tools/safe-path.js';
import { scratchDir } from '../helpers.js';

let cwd: { dir: string; cleanup: () => Promise<void> };
let outside: { dir: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  cwd = await scratchDir();
  outside = await scratchDir();
  await mkdir(join(cwd.dir, 'src'));
  await writeFile(join(cwd.dir, 'src', 'a.ts'), '');
  await symlink(outside.dir, join(cwd.dir, 'out'));
  await symlink(join(cwd.dir, 'src'), join(cwd.dir, 'src-link'));
});
afterEach(async () => {
  await cwd.cleanup();
  await outside.cleanup();
});

describe('paths inside the working directory', () => {
  it.each(['src/a.ts', './src/../src/a.ts', 'new/file.ts', '.', 'src-link/a.ts', 'src-link/new.ts'])('accepts %s', async (p) => {
    expect(await resolveInside(cwd.dir, p)).toBe(join(cwd.dir, p));
  });

  it('accepts an absolute path inside', async () => {
    expect(await resolveInside(cwd.dir, join(cwd.dir, 'src/a.ts'))).toBe(join(cwd.dir, 'src/a.ts'));
  });

  it.each(['..', '../x', 'src/../../x', '/etc/passwd', 'out/x', 'out/new/deeper.ts', 'out', 'a\0b'])('refuses %s', async (p) => {
    await expect(resolveInside(cwd.dir, p)).rejects.toBeInstanceOf(PathEscapeError);
  });
});
