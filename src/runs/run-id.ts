import { randomBytes } from 'node:crypto';

/** Sortable by time, unique enough for one working directory: 20261122-021500-a1b2. */
export function newRunId(now = new Date()): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const stamp = `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}`;
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

/**
 * What a run id may be (docs/hostile.md "Run ids"): it names a folder under .ralph/runs, so it is
 * one path segment of plain characters. `ralph stop ../../x` must not reach outside.
 */
const RUN_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export function isRunId(text: string): boolean {
  return RUN_ID.test(text) && !text.includes('..');
}
