// How a wait for a limit reads, wherever it is shown: "waiting for the usage limit until 03:00
// (2 h 13 m)". The time is the local clock's, as a person at the machine reads it.
import type { LimitKind } from '../executors/types.js';

const WHAT: Record<LimitKind, string> = { usage: 'the usage limit', rate: 'the rate limit', overloaded: 'the overloaded API' };

/** "2 h 13 m", "4 m 10 s", "12 s": coarse, as a person says it. */
export function humanSpan(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} m ${s % 60} s` : `${m} m`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} m` : `${h} h`;
}

function clockTime(at: Date): string {
  return `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
}

export function waitLine(kind: LimitKind, until: Date, now: Date): string {
  return `waiting for ${WHAT[kind]} until ${clockTime(until)} (${humanSpan(until.getTime() - now.getTime())})`;
}

/** "2026-11-26 20:02 (local time)": a moment as the wait line's clock shows it, with its day. */
export function localTime(epochMs: number): string {
  const at = new Date(epochMs);
  const day = `${at.getFullYear()}-${String(at.getMonth() + 1).padStart(2, '0')}-${String(at.getDate()).padStart(2, '0')}`;
  return `${day} ${clockTime(at)} (local time)`;
}
