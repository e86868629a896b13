// A full disk (docs/hostile.md "A full disk"): the run ends `interrupted` (exit 130) with a
// reason that names what is full, its state as last saved, and `--resume` continues it once
// space is freed. Only errors that mean "no room" count; anything else is a bug.
import type { Outcome } from '../contract.js';

const NO_ROOM = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

export function isDiskFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code !== undefined && NO_ROOM.has(code);
}

export function diskFullEnding(detail: string, resumeCommand: string): { outcome: Outcome; reason: string } {
  return {
    outcome: 'interrupted',
    reason: `no space left to write the run's files (${detail}); free some space on that file system and resume with: ${resumeCommand}`,
  };
}
