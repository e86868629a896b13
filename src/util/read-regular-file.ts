// Files a user or an agent names are read only when they are regular files (docs/hostile.md
// "Files ralph reads"). Opening a FIFO for reading blocks until a writer comes, deaf to signals;
// a character device such as /dev/zero never ends. So the file is opened with O_NONBLOCK (which
// never blocks on open), checked with fstat on that same descriptor (no race with a swap), and
// read only if it is a regular file.
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

const FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY;

/** What a path is, in words, for messages ("a FIFO (named pipe)", "a directory", …). */
export function kindOf(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe), or a pipe such as <(…)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSymbolicLink()) return 'a symbolic link';
  return 'not a file';
}

/** Thrown for a path that exists but is not a regular file; `code` reads like an errno. */
export class NotRegularFileError extends Error {
  readonly code = 'ENOTREG';
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${path} is not a regular file (it is ${kind})`);
  }
}

/** Too big to read into memory for what it is (a plan, a summary). */
export class FileTooLargeError extends Error {
  readonly code = 'EFBIG';
  constructor(
    readonly path: string,
    readonly size: number,
    readonly limit: number,
  ) {
    super(`${path} is ${size} bytes; at most ${limit} are read`);
  }
}

/** `check` sees the stats of the file as opened (no race with a swap) and may refuse it by throwing. */
export function readRegularFileSync(path: string, maxBytes = Infinity, check?: (stats: Stats) => void): Buffer {
  const fd = openSync(path, FLAGS);
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new NotRegularFileError(path, kindOf(stats));
    if (stats.size > maxBytes) throw new FileTooLargeError(path, stats.size, maxBytes);
    check?.(stats);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function readRegularFile(path: string, maxBytes = Infinity): Promise<Buffer> {
  const handle = await open(path, FLAGS);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new NotRegularFileError(path, kindOf(stats));
    if (stats.size > maxBytes) throw new FileTooLargeError(path, stats.size, maxBytes);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/**
 * The first `maxBytes` of a file an agent wrote in the working directory (a signal file), only
 * when it is a regular file of its own there: not a symlink (O_NOFOLLOW), not a hard link to a
 * file elsewhere, not a FIFO. Undefined when there is no such file.
 */
export function readOwnFilePrefixSync(path: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, FLAGS | constants.O_NOFOLLOW);
  } catch {
    return undefined; // absent, a symlink (ELOOP), unreadable
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.nlink > 1) return undefined;
    const buf = Buffer.alloc(Math.min(maxBytes, stats.size));
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}
