// An agent whose tools cannot run at all (its sandbox cannot start, a program it needs is
// missing) fails every tool call, iteration after iteration, each time a little differently
// worded by the agent. Three iterations in a row whose every tool call failed the same way get
// one warning that quotes the failure and names its likely cause (docs/first-hour.md#what-failed).
import { failureLine } from '../util/failure-line.js';
import type { RunBus } from './bus.js';
import { normaliseToolError } from './error-loop.js';
import type { RunEvent } from './events.js';

export const STREAK_ITERATIONS = 3;

/** The likely cause a failure line points at, for the person who has to fix it. */
export function likelyCause(line: string): string {
  if (/sandbox|bwrap|seatbelt|landlock|seccomp/i.test(line)) return "the agent's sandbox cannot start here";
  if (/no such file or directory|not found|ENOENT/i.test(line)) return 'a program or file the agent\'s tools need is missing';
  if (/permission denied|not permitted|EACCES|EPERM|read-only file system/i.test(line)) return "the agent's tools are not allowed to do what they try (permissions, a sandbox, a read-only folder)";
  return 'something the agent cannot change from inside its tools';
}

/** Subscribes to `bus`; emits the warning at most once per run. */
export function watchToolFailureStreak(bus: RunBus): void {
  let calls = 0;
  let failures = new Set<string>();
  let first = '';
  let streakKey: string | undefined;
  let streak = 0;
  let warned = false;
  bus.on('event', (e: RunEvent) => {
    if (warned) return;
    if (e.type === 'iteration-start') {
      calls = 0;
      failures = new Set();
      first = '';
    } else if (e.type === 'tool' && e.phase !== 'call') {
      calls++;
      if (e.error === undefined) {
        failures.add('\0ok'); // a call that worked: this iteration is not one of the streak
      } else {
        const line = failureLine(e.error);
        failures.add(normaliseToolError(line));
        first ||= line;
      }
    } else if (e.type === 'iteration-end') {
      const key = calls > 0 && failures.size === 1 && !failures.has('\0ok') ? [...failures][0] : undefined;
      if (key === undefined || key !== streakKey) streak = 0;
      streakKey = key;
      if (key !== undefined) streak++;
      if (streak >= STREAK_ITERATIONS) {
        warned = true;
        bus.emitEvent({
          type: 'warning',
          iteration: e.iteration,
          message: `every tool call of the last ${STREAK_ITERATIONS} iterations failed the same way: "${first}"; likely cause: ${likelyCause(first)}. More iterations will not fix that: fix it, then resume the run`,
        });
      }
    }
  });
}
