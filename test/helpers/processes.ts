// Whether a process a test started is still running. A zombie counts as gone: in a container
// whose PID 1 does not reap orphans, a dead process can linger as one for a long time.
import { readFileSync } from 'node:fs';

export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
