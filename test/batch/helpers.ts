import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export function tempDir(prefix = 'ralph-batch-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function writePlan(dir: string, name: string, frontMatter = ''): string {
  const path = join(dir, name);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${frontMatter ? `---\n${frontMatter}\n---\n` : ''}# ${name}\n\nDo the thing.\n\n<tasks><task><name>t</name></task></tasks>\n`);
  return path;
}
