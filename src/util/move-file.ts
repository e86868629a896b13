// Moving a file where rename(2) cannot: the run directory may be on another file system than the
// working directory (`--run-dir /mnt/other/...`), and rename across file systems fails with EXDEV.
// Then the file is copied and the original removed (docs/hostile.md "Another file system").
import { copyFileSync, cpSync, lstatSync, readlinkSync, renameSync, rmSync, symlinkSync } from 'node:fs';

export function moveFileSync(from: string, to: string): void {
  try {
    renameSync(from, to);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
  }
  const stats = lstatSync(from);
  try {
    if (stats.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else if (stats.isDirectory()) cpSync(from, to, { recursive: true, verbatimSymlinks: true, errorOnExist: true, force: false });
    else copyFileSync(from, to);
  } catch (error) {
    // A half-made copy is removed; the original stays where it was.
    rmSync(to, { recursive: true, force: true });
    throw error;
  }
  rmSync(from, { recursive: true, force: true });
}
