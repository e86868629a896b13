// The folder ralph is installed in (package.json, prompts/). Found by walking up from the running
// module, because that module may be src/…, dist/… or the bundle in dist/bundle/, at any depth.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_NAME } from '../contract.js';

let found: { root: string; version: string } | undefined;

function find(): { root: string; version: string } {
  if (found) return found;
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (name === PACKAGE_NAME) return (found = { root: dir, version: version ?? '0.0.0' });
    }
    if (dirname(dir) === dir) throw new Error(`ralph's package.json was not found above ${start}`);
  }
}

export function packageRoot(): string {
  return find().root;
}

export function packageVersion(): string {
  return find().version;
}
