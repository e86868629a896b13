// The findings of a report as the formats read them: from buildReport's FindingSource when the
// report has one, else from `report.findings` (a report made by hand, or one whose findings were
// read, and so may have been changed, as objects).
import { FINDING_SOURCE, type FindingGroup, type FindingSource, type Report } from './types.js';

/** A report whose `findings` are made from `source` the first time they are read. */
export interface SourcedReport extends Report {
  [FINDING_SOURCE]?: { source: FindingSource; materialised: boolean };
}

/**
 * `fields` with a `findings` getter (in `findings`' place among the keys, so JSON keeps the
 * documented order) that makes every finding an object once, on first use.
 */
export function withFindingSource(fields: Omit<Report, 'findings'>, source: FindingSource): Report {
  const { version, generatedAt, runsDir, filters, summary, ...rest } = fields;
  const state = { source, materialised: false };
  let all: FindingGroup[] | undefined;
  const report = {
    version,
    generatedAt,
    runsDir,
    filters,
    summary,
    get findings(): FindingGroup[] {
      state.materialised = true;
      return (all ??= source.slice(0, source.length));
    },
    ...rest,
  };
  // Not enumerable: a copy made by spreading the report gets the findings array, not the source.
  Object.defineProperty(report, FINDING_SOURCE, { value: state });
  return report;
}

export function findingSource(report: Report): FindingSource {
  const state = (report as SourcedReport)[FINDING_SOURCE];
  if (state !== undefined && !state.materialised) return state.source;
  return arraySource(report.findings);
}

export function arraySource(list: readonly FindingGroup[]): FindingSource {
  return {
    length: list.length,
    get: (i) => list[i]!,
    slice: (from, to) => list.slice(from, to),
    count: (i) => list[i]!.count,
    severity: (i) => list[i]!.severity,
  };
}
