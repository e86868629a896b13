// The json format is the Report itself: a stable, documented shape (version 1), compact (it can
// hold 100,000 findings; pipe it through jq to read it).
import type { Report } from './types.js';

/** Findings serialised per chunk: a report of many findings is never one string (V8 caps a
 *  string's length at about 512 MB). */
export const FINDINGS_PER_CHUNK = 1000;

export function renderJson(report: Report): string {
  return Array.from(jsonChunks(report)).join('');
}

/** The same text as `JSON.stringify(report)` plus a line break, in pieces, keys in Report order. */
export function* jsonChunks(report: Report): Generator<string> {
  const { version, generatedAt, runsDir, filters, summary, findings, invalid, brokenLines, runs, problems } = report;
  yield `${JSON.stringify({ version, generatedAt, runsDir, filters, summary }).slice(0, -1)},"findings":[`;
  for (let i = 0; i < findings.length; i += FINDINGS_PER_CHUNK) {
    yield `${i > 0 ? ',' : ''}${JSON.stringify(findings.slice(i, i + FINDINGS_PER_CHUNK)).slice(1, -1)}`;
  }
  yield `],${JSON.stringify({ invalid, brokenLines, runs, problems }).slice(1)}\n`;
}
