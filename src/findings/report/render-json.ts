// The json format is the Report itself: a stable, documented shape (version 1), compact (it can
// hold 100,000 findings; pipe it through jq to read it).
import type { Report } from './types.js';

/** Findings serialised per chunk: one JSON.stringify of the whole report builds a 30 MB rope that
 *  then has to be flattened and encoded in one piece, which cost more than the serialising. */
const FINDINGS_PER_CHUNK = 1_000;

export function renderJson(report: Report): string {
  return Array.from(jsonChunks(report)).join('');
}

/** The same text as `JSON.stringify(report)` plus a line break, in pieces, keys in Report order. */
export function* jsonChunks(report: Report): Generator<string> {
  const { findings, invalid, brokenLines, runs, problems, ...head } = report;
  const opening = JSON.stringify(head);
  yield `${opening.slice(0, -1)},"findings":[`;
  for (let i = 0; i < findings.length; i += FINDINGS_PER_CHUNK) {
    const part = JSON.stringify(findings.slice(i, i + FINDINGS_PER_CHUNK));
    // The comma on its own: joined to the slice, it would make a rope to flatten (copy) again.
    if (i > 0) yield ',';
    yield part.slice(1, -1);
  }
  yield `],"invalid":${JSON.stringify(invalid)},"brokenLines":${JSON.stringify(brokenLines)},"runs":${JSON.stringify(runs)},"problems":${JSON.stringify(problems)}}\n`;
}
