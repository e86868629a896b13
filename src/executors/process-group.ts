// Stopping an agent (or a shell, or a verify command) means stopping everything it started: the agent runs as the leader of its own
// process group (spawned detached), so one signal to -pid reaches its children and grandchildren.
import { readdirSync, readFileSync } from 'node:fs';

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

/**
 * True while a process of the group is alive. Zombies do not count: a dead grandchild reparented to
 * a PID 1 that never reaps (common in containers) would otherwise look alive forever.
 */
export function processGroupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (process.platform !== 'linux') return true;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
    } catch {
      continue; // exited while we looked
    }
    // "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ', 3);
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') return true;
  }
  return false;
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
