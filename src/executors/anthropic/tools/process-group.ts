// Every bash session runs in its own process group (stopped with src/executors/process-group.ts).
// Groups still alive when ralph exits are killed from a synchronous 'exit' hook: no leftovers even
// when nobody called close().
import { signalGroup } from '../../process-group.js';

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

