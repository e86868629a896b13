// Reads every run below a folder and folds it into a Report: the one data structure all three
// formats render.
import { readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { ACTIONS, OBSERVATION_TYPES, RUN_FILES, SEVERITIES } from '../../contract.js';
import type { Problem } from '../../errors.js';
import { discoverRuns } from './discover.js';
import { withFindingSource } from './finding-source.js';
import { compileFilters, type CompiledFilters } from './filters.js';
import { FindingGrouper } from './group.js';
import { DEFAULT_MAX_LINE_CHARS, forEachLine, forEachLineIn, type LineHandlers } from './line-reader.js';
import { readRunResult } from './read-run.js';
import { isPlainFinding, parseFindingLine, parseFindingValue, type ParsedLine } from './record.js';
import { ARENA_BASE, createRecordScanner, FIELD, INPUT_CAPACITY, scanLog, type ScannedLine } from './record-scan.js';
import {
  MAX_LISTED_BROKEN,
  MAX_LISTED_INVALID,
  type BrokenLine,
  type InvalidObservation,
  type Report,
  type ReportFilters,
  type RunSummary,
} from './types.js';

/** Logs up to this size are read whole; larger ones are streamed line by line. */
export const READ_WHOLE_MAX_BYTES = INPUT_CAPACITY;
/** Few lines ralph writes are shorter: logs of N bytes hold about N / this findings at most. */
const SHORT_LINE_BYTES = 300;

export interface BuildReportOptions {
  /** The folder to search (CLI default: .ralph in the current directory). */
  runsDir: string;
  filters?: ReportFilters;
  /** Injected clock for generatedAt. */
  now?: Date;
  maxLineChars?: number;
  /** Read ralph's own lines without JSON.parse (record-scan.ts); off only to compare the two. */
  scan?: boolean;
}

export async function buildReport(options: BuildReportOptions): Promise<Report> {
  const filters = options.filters ?? {};
  const compiled = compileFilters(filters);
  const problems: Problem[] = [];
  const locations = await discoverRuns(options.runsDir, problems);

  const scanner = options.scan === false ? undefined : createRecordScanner();
  // The findings' text goes to the scanner's memory, above the log being read.
  const grouper = scanner !== undefined ? new FindingGrouper(scanner.memory, ARENA_BASE) : new FindingGrouper();
  const maxLineChars = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  const invalid: InvalidObservation[] = [];
  const broken: BrokenLine[] = [];
  let invalidCount = 0;
  let brokenCount = 0;
  const runs: RunSummary[] = [];

  // Room for the groups the logs may hold, from their size (a line ralph writes is seldom under
  // 300 bytes): the grouper's arrays then need not grow, and be copied, as the logs are read.
  const sizes = locations.map((loc) => (loc.findings === undefined ? 0 : sizeOf(loc.findings)));
  grouper.reserve(sizes.reduce((sum, n) => sum + Math.max(0, n), 0) / SHORT_LINE_BYTES);

  for (const [index, loc] of locations.entries()) {
    const fallbackRun = loc.rel === '.' ? basename(options.runsDir) : basename(loc.dir);
    const read = loc.result !== undefined ? readRunResult(loc.result, inRun(loc.rel, RUN_FILES.result)) : null;
    if (read?.ok === false) problems.push(read.problem);
    const result = read?.ok ? read.result : null;
    let firstRun: string | null = null;
    let firstPlan: string | null = null;
    let findings = 0;

    if (loc.findings !== undefined) {
      const file = inRun(loc.rel, RUN_FILES.findings);
      const noteBroken = (line: number, reason: string): void => {
        brokenCount += 1;
        if (broken.length < MAX_LISTED_BROKEN) broken.push({ file, line, reason });
      };
      // The run's name and plan, when it has no result.json: the first record's.
      const nameRun = (run: string, plan: string): void => {
        firstRun ??= run;
        if (firstPlan === null && plan !== '') firstPlan = plan;
      };
      const take = (parsed: ParsedLine, n: number): void => {
        switch (parsed.kind) {
          case 'blank':
            return;
          case 'broken':
            noteBroken(n, parsed.reason);
            return;
          case 'finding': {
            const r = parsed.record;
            nameRun(r.run, r.plan);
            if (!compiled.finding(r)) return;
            findings += 1;
            grouper.add(r);
            return;
          }
          case 'invalid': {
            const r = parsed.record;
            nameRun(r.run, r.plan);
            if (!compiled.planAndTime(r.plan, r.at)) return;
            invalidCount += 1;
            if (invalid.length < MAX_LISTED_INVALID) invalid.push({ ...r, source: `${file}:${n}` });
            return;
          }
          default: {
            const never: never = parsed;
            throw new Error(`unhandled line kind ${String(never)}`);
          }
        }
      };
      const handlers: LineHandlers = {
        line: (text, n) => take(parseFindingLine(text, fallbackRun), n),
        tooLong(n, chars) {
          noteBroken(n, `line of ${chars} characters is longer than the ${maxLineChars}-character limit`);
        },
      };
      try {
        // A typical log (~100 KB) is read in one synchronous call: a chain of async reads per file
        // cost more than parsing it. Big logs are streamed so memory stays bounded. Read whole,
        // a log goes into the scanner's memory (reused from log to log) as bytes; without
        // WebAssembly it is read as text in one step.
        const size = sizes[index]! >= 0 ? sizes[index]! : statSync(loc.findings).size;
        if (size > READ_WHOLE_MAX_BYTES) {
          await forEachLine(loc.findings, handlers, maxLineChars);
        } else if (scanner !== undefined) {
          // The time of the line being read (scanLog hands over scanner.line), decoded only when
          // --since asks for it.
          const lineAt = (): string => {
            const { bytes, offsets } = scanner.line;
            return bytes.toString('utf8', offsets[FIELD.at], offsets[FIELD.at + 1]);
          };
          const scanned = (line: ScannedLine, n: number): void => {
            if (!isPlainFinding(line)) {
              take(parseFindingValue(scanner.values(), fallbackRun, line.plain), n);
              return;
            }
            nameRun(line.run, line.plan);
            if (!compiled.fields(SEVERITIES[line.rank]!, OBSERVATION_TYPES[line.typeId]!, ACTIONS[line.actionId]!, line.plan, lineAt)) return;
            findings += 1;
            grouper.addScanned(line);
          };
          scanLog(scanner, loc.findings, size, handlers, maxLineChars, scanned);
        } else {
          forEachLineIn(readFileSync(loc.findings, 'utf8'), handlers, maxLineChars);
        }
      } catch (error) {
        problems.push({ file, message: `cannot read findings log: ${(error as Error).message}` });
      }
    }

    const run: RunSummary = {
      dir: loc.rel,
      run: result?.run ?? firstRun ?? fallbackRun,
      plan: result?.plan ?? firstPlan,
      outcome: result?.outcome ?? null,
      exitCode: result?.exitCode ?? null,
      reason: result?.reason ?? null,
      iterations: result?.iterations ?? null,
      bailouts: result?.bailouts ?? null,
      costUsd: result?.costUsd ?? null,
      prUrl: result?.prUrl ?? null,
      startedAt: result?.startedAt ?? null,
      endedAt: result?.endedAt ?? null,
      findings,
    };
    if (keepRun(run, compiled)) runs.push(run);
  }

  const source = grouper.source();
  return withFindingSource({
    version: 1,
    generatedAt: (options.now ?? new Date()).toISOString(),
    runsDir: options.runsDir,
    filters,
    summary: {
      runs: runs.length,
      occurrences: grouper.occurrences,
      distinct: source.length,
      invalid: invalidCount,
      brokenLines: brokenCount,
      bySeverity: grouper.severityCounts(),
      outcomes: countOutcomes(runs),
      costUsd: runs.reduce((sum, r) => sum + (r.costUsd ?? 0), 0),
    },
    invalid,
    brokenLines: broken,
    runs,
    problems,
  }, source);
}

/** A file's size, or -1 when it cannot be read (the reading then says why). */
function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

/** A run's file as shown to the user: relative to the runs folder, `/`-separated. */
function inRun(rel: string, name: string): string {
  return rel === '.' ? name : `${rel}/${name}`;
}

/** --plan narrows the runs listed; --since keeps runs that ended (or started) since then. */
function keepRun(run: RunSummary, f: CompiledFilters): boolean {
  if (!f.plan(run.plan)) return false;
  if (f.sinceMs === null || run.findings > 0) return true;
  const t = Date.parse(run.endedAt ?? run.startedAt ?? '');
  return Number.isNaN(t) || t >= f.sinceMs;
}

/** Runs without a result.json count under "unknown". */
function countOutcomes(runs: RunSummary[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of runs) {
    const k = r.outcome ?? 'unknown';
    out[k] = (out[k] ?? 0) + 1;
  }
  return out;
}
