// Every bash session runs in its own process group, so stopping it stops whatever it started.
// Groups still alive when ralph exits are killed from a synchronous 'exit' hook: no leftovers even
// when nobody called close().

const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killAllNow(): void {
  for (const pgid of liveGroups) signalGroup(pgid, 'SIGKILL');
  liveGroups.clear();
}

export function trackGroup(pgid: number): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', killAllNow);
  }
  liveGroups.add(pgid);
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** true when the signal was delivered to at least one process of the group. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is empty already
  }
}

export function groupAlive(pgid: number): boolean {
  return signalGroup(pgid, 0);
}
