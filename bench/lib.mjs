// Shared helpers for the benchmarks: timing a child process and reading its peak RSS.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const benchDir = dirname(fileURLToPath(import.meta.url));
export const repoDir = dirname(benchDir);
export const dataDir = join(benchDir, '.data');
mkdirSync(dataDir, { recursive: true });
export const ralphBin = join(repoDir, 'bin', 'ralph.js');

/**
 * Runs a command to completion; resolves wall time in ms and peak RSS in KiB (from GNU time's
 * report when /usr/bin/time exists, else from /proc polling).
 */
export function timed(cmd, args, { stdout = 'ignore', cwd = repoDir, env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', stdout, 'pipe'] });
    let peakKiB = 0;
    let stderr = '';
    const poll = setInterval(() => {
      try {
        const status = readStatus(child.pid);
        if (status > peakKiB) peakKiB = status;
      } catch {}
    }, 20);
    child.stderr.on('data', (d) => (stderr += d));
    // A pipe that nobody reads would stall the child; drain it as a real consumer would.
    child.stdout?.resume();
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      resolve({ ms, code, peakKiB, stderr });
    });
  });
}

import { readFileSync } from 'node:fs';
function readStatus(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(text);
  return m ? Number(m[1]) : 0;
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export function result(name, fields) {
  console.log(`RESULT ${name}: ${Object.entries(fields).map(([k, v]) => `${k}=${v}`).join(' ')}`);
}
