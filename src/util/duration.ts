// Durations as users write them in flags and front matter: "90m", "1h30m", "45s", "500ms", or a
// bare number of seconds.

const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;

/** Milliseconds, or undefined when `text` is not a duration. */
export function parseDuration(text: string | number): number | undefined {
  if (typeof text === 'number') return Number.isFinite(text) && text >= 0 ? text * 1_000 : undefined;
  const s = text.trim();
  if (s === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1_000;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < s.length) {
    const at = PART.lastIndex;
    const m = PART.exec(s);
    if (!m || m.index !== at) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
  }
  return total;
}

export function formatDuration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)}ms`;
  const s = Math.round(ms / 1_000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  const h = Math.floor(m / 60);
  return `${h}h${m % 60 ? `${m % 60}m` : ''}`;
}
