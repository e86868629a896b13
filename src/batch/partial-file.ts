// The `.md.partial` file of one attempt (docs/batch.md#result-files-and-the-sentinel). It is written through one open descriptor,
// so a rename while the attempt is still running moves the file without losing lines, and once
// the attempt is closed a straggling event cannot write anything, anywhere.
import { closeSync, openSync, writeSync, mkdirSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathExists } from '../util/path-exists.js';

export const PARTIAL_SUFFIX = '.md.partial';
export const RESULT_SUFFIX = '.md';
export const ATTEMPTS_DIR = 'attempts';

export function partialPath(out: string, plan: string): string {
  return join(out, `${plan}${PARTIAL_SUFFIX}`);
}

export function resultPath(out: string, plan: string): string {
  return join(out, `${plan}${RESULT_SUFFIX}`);
}

export class PartialWriter {
  private fd: number | null;

  constructor(readonly path: string, header: string) {
    mkdirSync(dirname(path), { recursive: true });
    // 'w': a new attempt starts a new file; what an earlier one left was moved aside before.
    this.fd = openSync(path, 'w');
    this.write(header);
  }

  get closed(): boolean {
    return this.fd === null;
  }

  /** Appends text; a no-op once closed. */
  write(text: string): void {
    if (this.fd === null) return;
    writeSync(this.fd, text);
  }

  line(text: string): void {
    this.write(`${text}\n`);
  }

  close(): void {
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    closeSync(fd);
  }
}


/** Moves a file into `{out}/attempts/` under a name that is not taken yet; returns the new path. */
export async function moveAside(out: string, from: string, name: string): Promise<string> {
  const dir = join(out, ATTEMPTS_DIR);
  await mkdir(dir, { recursive: true });
  let target = join(dir, name);
  for (let n = 2; await pathExists(target); n++) target = join(dir, `${n}-${name}`);
  await rename(from, target);
  return target;
}
