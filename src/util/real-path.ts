import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';

/** The path with its symbolic links resolved (as typed, made absolute, when it cannot be: it does not exist). */
export function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
