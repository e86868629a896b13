import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { processGroupAlive, terminateProcessGroup } from '../../src/executors/process-group.js';
import { isRunning, runningWith } from './command/helpers.js';

// Processes of these tests sleep this many seconds: a marker to find leftovers by.
const MARKER = 'sleep 7302';

afterEach(() => {
  expect(runningWith(MARKER)).toEqual([]);
});

/** A detached shell (its own group) running two background sleeps; `script` comes first. */
async function startGroup(script: string): Promise<{ pid: number; members: number[] }> {
  const child = spawn('sh', ['-c', `${script}; sleep 7302 & echo $!; sleep 7302 & echo $!; wait`], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const members = await new Promise<number[]>((resolve) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const pids = out.split('\n').filter(Boolean).map(Number);
      if (pids.length === 2) resolve(pids);
    });
  });
  return { pid: child.pid!, members };
}

describe('terminateProcessGroup', () => {
  it('stops a group that heeds TERM without waiting for the grace', async () => {
    const { pid, members } = await startGroup('true');
    expect(processGroupAlive(pid)).toBe(true);
    // A grace far past the test's timeout: waiting it out would fail the test.
    await terminateProcessGroup(pid, 3_600_000);
    expect(processGroupAlive(pid)).toBe(false);
    expect(members.some(isRunning)).toBe(false);
  });

  it('sends KILL after the grace to a group that ignores TERM, children included', async () => {
    const { pid, members } = await startGroup('trap "" TERM');
    const started = Date.now();
    await terminateProcessGroup(pid, 250);
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(processGroupAlive(pid)).toBe(false);
    expect(members.some(isRunning)).toBe(false);
  });

  it('returns at once for a group that does not exist, and never signals pid 0, 1 or below', async () => {
    // Graces far past the test's timeout: waiting one out would fail the test.
    await terminateProcessGroup(2 ** 22 + 12345, 3_600_000); // above Linux's pid_max
    await terminateProcessGroup(0, 3_600_000);
    await terminateProcessGroup(1, 3_600_000);
    await terminateProcessGroup(-1, 3_600_000);
    expect(processGroupAlive(2 ** 22 + 12345)).toBe(false);
  });
});
