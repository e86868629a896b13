// Stopping an agent (or a shell, or a verify command) means stopping everything it started: the agent runs as the leader of its own
// process group (spawned detached), so one signal to -pid reaches its children and grandchildren.
import { isLive, procPids, readStat } from './proc-stat.js';

/** How long to wait after KILL before giving up (a process stuck in the kernel cannot be hurried). */
const AFTER_KILL_WAIT_MS = 2_000;
const POLL_MS = 20;

/** Sends `signal` to the group; false when no process of the group exists (or it is not ours). */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** True while a process of the group is alive (zombies do not count: see proc-stat.ts isLive). */
export function processGroupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  const pids = procPids();
  if (pids === undefined) return true;
  return pids.some((pid) => {
    const info = readStat(pid);
    return isLive(info) && info.pgid === pgid;
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitUntilGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!processGroupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await delay(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
  }
}

/** Kill a whole process group: TERM, then KILL after graceMs if anything is still alive. Resolves when gone. */
export async function terminateProcessGroup(pid: number, graceMs: number): Promise<void> {
  if (!Number.isInteger(pid) || pid <= 1) return; // -1 or -0 would signal far more than one group
  if (!signalGroup(pid, 'SIGTERM')) return;
  if (await waitUntilGone(pid, Math.max(0, graceMs))) return;
  signalGroup(pid, 'SIGKILL');
  await waitUntilGone(pid, AFTER_KILL_WAIT_MS);
}
