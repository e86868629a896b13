// Reading /proc/<pid>/stat: a kernel thread is told apart by its flags, so the leftover-process
// scan need not read its environment (it has none).
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { procPids, readStat } from '../../src/executors/proc-stat.js';

function kthreadd(): boolean {
  try {
    return readFileSync('/proc/2/stat', 'latin1').startsWith('2 (kthreadd)');
  } catch {
    return false; // no /proc, or a PID namespace that shows no kernel threads
  }
}

it.skipIf(process.platform !== 'linux')('this process is not a kernel thread', () => {
  expect(readStat(process.pid)).toMatchObject({ pid: process.pid, ppid: process.ppid, kernelThread: false });
});

it.skipIf(!kthreadd())('kthreadd and its children are kernel threads', () => {
  expect(readStat(2)).toMatchObject({ comm: 'kthreadd', kernelThread: true });
  const children = (procPids() ?? []).map(readStat).filter((p) => p?.ppid === 2);
  expect(children.length).toBeGreaterThan(0);
  for (const p of children) expect(p!.kernelThread, `pid ${p!.pid} (${p!.comm})`).toBe(true);
});
