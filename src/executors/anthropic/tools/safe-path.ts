// The editor tool works inside the working directory only. A path is checked after symlinks are
// resolved (for a path that does not exist yet: its nearest existing ancestor), so neither `..`,
// an absolute path elsewhere, nor a symlink pointing out can reach a file outside.
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep, basename, join } from 'node:path';

export class PathEscapeError extends Error {}

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

async function realpathOrNull(p: string): Promise<string | null> {
  try {
    return await realpath(p);
  } catch {
    return null;
  }
}

/** The real path of the nearest existing ancestor, with the missing segments appended. */
async function resolveExisting(p: string): Promise<string> {
  const missing: string[] = [];
  let current = p;
  for (;;) {
    const real = await realpathOrNull(current);
    if (real !== null) return missing.length ? join(real, ...missing.reverse()) : real;
    const parent = dirname(current);
    if (parent === current) return p;
    missing.push(basename(current));
    current = parent;
  }
}

/**
 * The absolute path `input` names, relative to `cwd` when not absolute; throws PathEscapeError
 * when it resolves outside `cwd`.
 */
export async function resolveInside(cwd: string, input: string): Promise<string> {
  if (input.includes('\0')) throw new PathEscapeError(`the path contains a NUL byte`);
  const root = (await realpathOrNull(cwd)) ?? resolve(cwd);
  const lexical = resolve(cwd, input);
  const refusal = (): PathEscapeError =>
    new PathEscapeError(
      `refused: ${input} is outside the working directory ${cwd}; use a path inside it (relative paths are resolved from it)`,
    );
  if (!inside(resolve(cwd), lexical) && !inside(root, lexical)) throw refusal();
  const real = await resolveExisting(lexical);
  if (!inside(root, real)) throw refusal();
  return lexical;
}
