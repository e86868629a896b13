// Finding and stopping a run's processes (docs/hostile.md "Processes of a run"): through parent
// links, and by the marker in the environment for those that left the tree with setsid.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { findProcesses, stopProcesses } from '../../src/executors/process-tree.js';
import { isRunning } from '../helpers/processes.js';
import { PATIENCE_MS } from '../helpers/patience.js';

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

async function until(check: () => boolean, ms = PATIENCE_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('finds a child, a grandchild, and a setsid daemon that left the tree (by its marker); stops them all', async () => {
  const marker = { name: 'RALPH_RUN_ID', value: `test-${randomBytes(6).toString('hex')}` };
  const child = spawn('sh', ['-c', 'setsid sh -c "sleep 30" & sleep 30 & wait'], { env: { ...process.env, [marker.name]: marker.value }, stdio: 'ignore' });
  started.push(child.pid!);
  await until(() => findProcesses({ marker }).length >= 4);
  const found = findProcesses({ marker });
  for (const p of found) started.push(p.pid);
  // By the tree alone, the daemon (its own session, reparented) may be missed; by the marker it is not.
  expect(found.map((p) => p.comm).filter((c) => c === 'sleep').length).toBe(2);
  const stopped = await stopProcesses({ marker }, 1_000);
  expect(stopped.length).toBeGreaterThanOrEqual(4);
  await until(() => found.every((p) => !isRunning(p.pid)));
  expect(findProcesses({ marker })).toEqual([]);
});

it('never counts ralph itself or its ancestors, whatever their environment says', () => {
  const marker = { name: 'PATH', value: process.env.PATH! };
  const found = findProcesses({ marker }).map((p) => p.pid);
  expect(found).not.toContain(process.pid);
  expect(found).not.toContain(process.ppid);
});
