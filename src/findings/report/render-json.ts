// The json format is the Report itself: a stable, documented shape (version 1), compact (it can
// hold 100,000 findings; pipe it through jq to read it).
import { findingSource } from './finding-source.js';
import { PLAIN_TEXT, type FindingGroup, type FindingSource, type Report } from './types.js';

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
export function* arrayElements(items: FindingSource, per: number, serialise: (slice: FindingGroup[]) => string): Generator<string> {
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
  // Named one by one: reading `findings` would make every finding an object at once.
  const { version, generatedAt, runsDir, filters, summary, invalid, brokenLines, runs, problems } = report;
  const opening = JSON.stringify({ version, generatedAt, runsDir, filters, summary });
  yield `${opening.slice(0, -1)},"findings":[`;
  yield* arrayElements(findingSource(report), FINDINGS_PER_CHUNK, groupsJson());
  yield `],"invalid":${JSON.stringify(invalid)},"brokenLines":${JSON.stringify(brokenLines)},"runs":${JSON.stringify(runs)},"problems":${JSON.stringify(problems)}}\n`;
}

/**
 * JSON.stringify for a slice of findings. A group whose strings need no escaping (PLAIN_TEXT) is
 * written from a template, keys in FindingGroup's order: that was a third of the serialising
 * time; any other group goes to JSON.stringify. Run and plan lists, shared by many groups, are
 * serialised once each.
 */
function groupsJson(): (slice: FindingGroup[]) => string {
  const lists = new Map<readonly string[], string>();
  const list = (names: readonly string[]): string => {
    let json = lists.get(names);
    if (json === undefined) {
      json = JSON.stringify(names);
      lists.set(names, json);
    }
    return json;
  };
  return (slice) => {
    let out = '[';
    for (let i = 0; i < slice.length; i++) {
      const g = slice[i]!;
      if (i > 0) out += ',';
      out += g[PLAIN_TEXT] !== undefined
        ? `{"type":"${g.type}","severity":"${g.severity}","action":"${g.action}","title":"${g.title}","detail":"${g.detail}",` +
          `"file":${g.file === null ? 'null' : `"${g.file}"`},"count":${g.count},"runs":${list(g.runs)},"plans":${list(g.plans)},` +
          `"firstAt":"${g.firstAt}","lastAt":"${g.lastAt}"}`
        : JSON.stringify(g);
    }
    return `${out}]`;
  };
}
