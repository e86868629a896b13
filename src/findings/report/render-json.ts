// The json format is the Report itself: a stable, documented shape (version 1), compact (it can
// hold 100,000 findings; pipe it through jq to read it).
import type { Report } from './types.js';

/**
 * Findings serialised per chunk. One JSON.stringify of the whole report builds a 30 MB rope that
 * then has to be flattened and encoded in one piece, which cost more than the serialising. Small
 * chunks (~60 KB) stay in the young generation, whose pages are mapped and warm; chunks of 1,000
 * (~500 KB) each went to fresh large-object pages, and rendering the json took a fifth longer.
 */
export const FINDINGS_PER_CHUNK = 128;

/**
 * The elements of a JSON array, comma-separated and without its brackets, serialised `per` at a
 * time. The comma goes out on its own: joined to a slice it would make a rope to flatten (copy)
 * again. `serialise` must escape per character (as JSON.stringify does), so the pieces join up.
 */
export function* arrayElements<T>(items: readonly T[], per: number, serialise: (slice: T[]) => string): Generator<string> {
  for (let i = 0; i < items.length; i += per) {
    const part = serialise(items.slice(i, i + per));
    if (i > 0) yield ',';
    yield part.slice(1, -1);
  }
}

export function renderJson(report: Report): string {
  return Array.from(jsonChunks(report)).join('');
}

/** The same text as `JSON.stringify(report)` plus a line break, in pieces, keys in Report order. */
export function* jsonChunks(report: Report): Generator<string> {
  const { findings, invalid, brokenLines, runs, problems, ...head } = report;
  const opening = JSON.stringify(head);
  yield `${opening.slice(0, -1)},"findings":[`;
  yield* arrayElements(findings, FINDINGS_PER_CHUNK, (slice) => JSON.stringify(slice));
  yield `],"invalid":${JSON.stringify(invalid)},"brokenLines":${JSON.stringify(brokenLines)},"runs":${JSON.stringify(runs)},"problems":${JSON.stringify(problems)}}\n`;
}
