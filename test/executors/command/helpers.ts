// Shared by the command executor tests: fixtures, event filters, and a look at running processes.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ExecutorEvent } from '../../../src/executors/types.js';
export { isRunning } from '../../helpers/processes.js';
import { isRunning } from '../../helpers/processes.js';

export const AGENTS = fileURLToPath(new URL('../../fixtures/agents/', import.meta.url));
export const STREAMS = fileURLToPath(new URL('../../fixtures/streams/', import.meta.url));

/** `stream` cut into pieces of the lengths in `cuts` (a property test's arbitrary), the rest as one last piece. */
export function cutInto(stream: string, cuts: number[]): string[] {
  const chunks: string[] = [];
  let at = 0;
  for (const c of cuts) {
    if (at >= stream.length) break;
    chunks.push(stream.slice(at, at + c));
    at += c;
  }
  if (at < stream.length) chunks.push(stream.slice(at));
  return chunks;
}

export function streamFixture(name: string): Buffer {
  return readFileSync(`${STREAMS}${name}`);
}

/** Events that carry meaning (transcript logging and heartbeats left out). */
export function meaningful(events: ExecutorEvent[]): ExecutorEvent[] {
  return events.filter((e) => e.type !== 'log' && e.type !== 'activity');
}

export function textOf(events: ExecutorEvent[], stream?: 'stdout' | 'stderr'): string {
  return events
    .filter((e): e is Extract<ExecutorEvent, { type: 'text' }> => e.type === 'text' && (stream === undefined || e.stream === stream))
    .map((e) => e.chunk.toString())
    .join('');
}

export function logOf(events: ExecutorEvent[], stream: 'stdout' | 'stderr'): Buffer {
  return Buffer.concat(
    events
      .filter((e): e is Extract<ExecutorEvent, { type: 'log' }> => e.type === 'log' && e.stream === stream)
      .map((e) => (typeof e.chunk === 'string' ? Buffer.from(e.chunk) : e.chunk)),
  );
}


/** Live processes whose command line contains `marker`. */
export function runningWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'latin1').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (cmdline.includes(marker) && isRunning(Number(entry))) found.push(Number(entry));
  }
  return found;
}
