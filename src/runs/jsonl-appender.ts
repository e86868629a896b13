// Appends one JSON object a line, synchronously, so a crash loses at most the line being written
// and readers (ralph status, ralph report, tail -f) always see whole lines.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export class JsonlAppender {
  private fd: number | undefined;
  /** The first write error (a full disk): lines after it are dropped, and the owner decides. */
  error: NodeJS.ErrnoException | undefined;

  constructor(readonly path: string) {}

  append(value: unknown): void {
    if (this.error) return;
    try {
      if (this.fd === undefined) {
        mkdirSync(dirname(this.path), { recursive: true });
        this.fd = openSync(this.path, 'a');
      }
      writeSync(this.fd, `${JSON.stringify(value)}\n`);
    } catch (error) {
      this.error = error as NodeJS.ErrnoException;
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
