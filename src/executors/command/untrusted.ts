// Agent output is untrusted: every field of a decoded event is checked before use, and every text
// that ends up in an event we emit is bounded.

export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

/** A line of JSON holding an object; undefined for anything else (not JSON, a torn line, an array). */
export function parseObject(text: string): JsonObject | undefined {
  try {
    return asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A token count: a finite number not below zero, else 0. */
export function asCount(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}

/** A cost in USD: a finite number not below zero, else null (unknown, not free). */
export function asCost(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}

const SUMMARY_MAX = 200;
export const ERROR_MAX = 2_000;
export const WARNING_MAX = 500;

/** Cut to `max` characters, marking the cut. */
export function bounded(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** One line of at most `max` characters, for summaries shown beside a progress bar. */
export function oneLine(text: string, max = SUMMARY_MAX): string {
  // Cut before collapsing spaces: the text may be a whole file's content.
  return bounded(text.slice(0, max * 4).replace(/\s+/g, ' ').trim(), max);
}

/** A text line for the parser: each message block ends a line, so a signal in it stands alone. */
export function endLine(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}
