import { readFileSync } from 'node:fs';

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Alive, and still a ralph process (pids are reused after a crash). */
export function ralphAlive(pid: number): boolean {
  if (!pidAlive(pid)) return false;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return /ralph|node/.test(cmdline);
  } catch {
    return true; // no /proc: trust the signal check
  }
}
