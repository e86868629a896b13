// Finding and stopping every process of a run (docs/hostile.md "Processes of a run"). A process
// group is not enough: an agent's command started with `setsid` (the Codex CLI starts every
// command that way) leaves the group, and a daemon leaves the tree too when its parent exits. So
// a run's processes are found two ways on Linux, from /proc: descendants of the processes we
// started (through their parent links), and any process whose environment carries the run's
// marker (`RALPH_RUN_TOKEN=<token>`, kept across resumes; see src/loop/leftover-processes.ts),
// which every child inherits unless it scrubs its environment.
import { readFileSync } from 'node:fs';
import { isLive, procPids, readStat, type ProcessInfo } from './proc-stat.js';
import { terminateProcessGroup } from './process-group.js';

/** An environment variable that marks a process as one of ours. */
export interface ProcessMarker {
  name: string;
  value: string;
}

export interface FindOptions {
  /** Processes we started: they and their descendants. */
  roots?: number[];
  /** Process groups we started (each the pid of its leader): every member and its descendants. */
  groups?: number[];
  /** Processes whose environment holds this variable with this value. */
  marker?: ProcessMarker;
  /** Processes spared (a persistent shell); their descendants are still found. */
  keep?: number[];
}

const POLL_MS = 20;
/** After KILL: how long to wait before giving up (a process stuck in the kernel cannot be hurried). */
const AFTER_KILL_WAIT_MS = 2_000;

/** Every live (non-zombie) process, from /proc; empty where there is no /proc. */
export function listProcesses(): Map<number, ProcessInfo> {
  const all = new Map<number, ProcessInfo>();
  for (const pid of procPids() ?? []) {
    const info = readStat(pid);
    if (!isLive(info)) continue;
    all.set(info.pid, { pid: info.pid, ppid: info.ppid, pgid: info.pgid, comm: info.comm, kernelThread: info.kernelThread });
  }
  return all;
}

function hasMarker(pid: number, marker: ProcessMarker): boolean {
  let environ: Buffer;
  try {
    environ = readFileSync(`/proc/${pid}/environ`);
  } catch {
    return false; // gone, or not ours to read
  }
  const needle = Buffer.from(`${marker.name}=${marker.value}\0`);
  if (environ.subarray(0, needle.length).equals(needle)) return true;
  return environ.includes(Buffer.concat([Buffer.from([0]), needle]));
}

/** ralph itself and its ancestors are never "processes of the run", whatever their environment says. */
function selfAndAncestors(all: Map<number, ProcessInfo>): Set<number> {
  const out = new Set<number>();
  let pid: number | undefined = process.pid;
  while (pid !== undefined && pid > 0 && !out.has(pid)) {
    out.add(pid);
    pid = all.get(pid)?.ppid;
  }
  return out;
}

/** The live processes that belong to what `options` names, children before nothing in particular. */
export function findProcesses(options: FindOptions, all = listProcesses()): ProcessInfo[] {
  const exclude = selfAndAncestors(all);
  for (const pid of options.keep ?? []) exclude.add(pid);
  const found = new Set<number>();
  for (const pid of options.roots ?? []) if (all.has(pid)) found.add(pid);
  const groups = new Set(options.groups ?? []);
  if (groups.size > 0) for (const p of all.values()) if (groups.has(p.pgid)) found.add(p.pid);
  // A kernel thread's environ reads empty: it cannot hold the marker, so it is not read.
  if (options.marker) for (const p of all.values()) if (!p.kernelThread && !found.has(p.pid) && hasMarker(p.pid, options.marker)) found.add(p.pid);
  // Descendants of everything found so far, through parent links.
  const children = new Map<number, number[]>();
  for (const p of all.values()) {
    const list = children.get(p.ppid);
    if (list) list.push(p.pid);
    else children.set(p.ppid, [p.pid]);
  }
  const queue = [...found];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (!found.has(child)) {
        found.add(child);
        queue.push(child);
      }
    }
  }
  return [...found].filter((pid) => !exclude.has(pid)).map((pid) => all.get(pid)!);
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** kill(2) says no process (or, for -pgid, no member of the group) exists, zombies included. */
function noSuchProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function alive(pid: number): boolean {
  return isLive(readStat(pid));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function waitGone(pids: number[], ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const left = pids.filter(alive);
    if (left.length === 0 || Date.now() >= deadline) return left;
    await delay(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
  }
}

/**
 * Stops what `options` names: TERM to every process (and group) found, KILL after `graceMs` to
 * whatever is still alive, found again so that children started meanwhile go too. Resolves with
 * the processes that were signalled.
 */
export async function stopProcesses(options: FindOptions, graceMs: number): Promise<ProcessInfo[]> {
  if (process.platform !== 'linux') {
    // Without /proc only the groups can be found: TERM, then KILL, as before.
    await Promise.all((options.groups ?? []).map((g) => terminateProcessGroup(g, graceMs)));
    return [];
  }
  // An agent that exited cleanly leaves no process of its pid or group: nothing to find, no /proc to read.
  if (!options.marker && (options.roots ?? []).every(noSuchProcess) && (options.groups ?? []).every((g) => noSuchProcess(-g))) return [];
  const first = findProcesses(options);
  if (first.length === 0) return [];
  for (const g of options.groups ?? []) if (Number.isInteger(g) && g > 1) signal(-g, 'SIGTERM');
  for (const p of first) signal(p.pid, 'SIGTERM');
  const stubborn = await waitGone(
    first.map((p) => p.pid),
    Math.max(0, graceMs),
  );
  const seen = new Map(first.map((p) => [p.pid, p]));
  const again = findProcesses(options).filter((p) => stubborn.includes(p.pid) || !seen.has(p.pid));
  for (const p of again) {
    signal(p.pid, 'SIGKILL');
    seen.set(p.pid, p);
  }
  if (again.length > 0) await waitGone(again.map((p) => p.pid), AFTER_KILL_WAIT_MS);
  return [...seen.values()];
}
