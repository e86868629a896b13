// iterations/<n>.log: the executor's raw output, appended as it arrives.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export class Transcript {
  private fd: number;

  constructor(path: string) {
    mkdirSync(dirname(path), { recursive: true });
    this.fd = openSync(path, 'a');
  }

  write(chunk: Buffer | string): void {
    if (typeof chunk === 'string') writeSync(this.fd, chunk);
    else writeSync(this.fd, chunk, 0, chunk.length);
  }

  close(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
  }
}
