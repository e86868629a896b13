// Reading Linux's process table from /proc, for src/executors/process-group.ts (is a group still
// alive?) and src/executors/process-tree.ts (which processes belong to a run?).
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** The command name from /proc/<pid>/stat (at most 15 characters). */
  comm: string;
  /** A kernel thread: it has no memory of its own, so no environment either. */
  kernelThread: boolean;
}

/** PF_KTHREAD in the flags field of /proc/<pid>/stat (include/linux/sched.h). */
const PF_KTHREAD = 0x00200000;

/** The pids in /proc; undefined where there is no /proc to read. */
export function procPids(): number[] | undefined {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const pids: number[] = [];
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first >= 48 && first <= 57) pids.push(Number(entry));
  }
  return pids;
}

/** One process's stat line; undefined when it exited while we looked. */
export function readStat(pid: number): (ProcessInfo & { state: string }) | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // "pid (comm) S ppid pgrp ...": comm may hold spaces and parentheses, so read after the last ')'.
  const close = stat.lastIndexOf(')');
  // After it: state ppid pgrp session tty_nr tpgid flags.
  const fields = stat.slice(close + 2).split(' ', 7);
  return {
    pid,
    comm: stat.slice(stat.indexOf('(') + 1, close),
    state: fields[0] ?? '?',
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    kernelThread: (Number(fields[6]) & PF_KTHREAD) !== 0,
  };
}

/**
 * Zombies do not count as alive: a dead process reparented to a PID 1 that never reaps (common in
 * containers) would otherwise look alive forever.
 */
export function isLive<T extends { state: string }>(info: T | undefined): info is T {
  return info !== undefined && info.state !== 'Z' && info.state !== 'X';
}

/**
 * Bytes the processes of group `pgid` have read and written so far (rchar + wchar of
 * /proc/<pid>/io: files, pipes and sockets alike); undefined where none of them can be read.
 * An agent retrying its API in silence keeps these growing; a hung one does not.
 */
export function groupIoBytes(pgid: number): number | undefined {
  let total: number | undefined;
  for (const pid of procPids() ?? []) {
    const info = readStat(pid);
    if (!isLive(info) || info.pgid !== pgid) continue;
    let io: string;
    try {
      io = readFileSync(`/proc/${pid}/io`, 'latin1');
    } catch {
      continue;
    }
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? 0);
    total = (total ?? 0) + field('rchar') + field('wchar');
  }
  return total;
}
