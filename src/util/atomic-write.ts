// Files a user reads are never seen half-written: write a temp file beside the target, flush it,
// then rename over the target (atomic on one file system).
import { randomBytes } from 'node:crypto';
import { open, rename, rm, mkdir } from 'node:fs/promises';
import { writeFileSync, renameSync, mkdirSync, rmSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';

function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const tmp = tempPathFor(target);
  try {
    const handle = await open(tmp, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(tmp, target);
  } catch (error) {
    await rm(tmp, { force: true });
    throw error;
  }
}

/** Synchronous variant for exit paths (a second Ctrl+C) where no await will run. */
export function writeFileAtomicSync(target: string, data: string | Uint8Array): void {
  mkdirSync(dirname(target), { recursive: true });
  const tmp = tempPathFor(target);
  try {
    writeFileSync(tmp, data);
    renameSync(tmp, target);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

export function writeJsonAtomic(target: string, value: unknown): Promise<void> {
  return writeFileAtomic(target, `${JSON.stringify(value, null, 2)}\n`);
}
