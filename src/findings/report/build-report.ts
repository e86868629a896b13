// Reads every run below a folder and folds it into a Report: the one data structure all three
// formats render. Each findings log is read line by line, each line JSON.parsed and checked
// (record.ts), each finding grouped (group.ts). See docs/report.md.
import { basename } from 'node:path';
import { RUN_FILES } from '../../contract.js';
import type { Problem } from '../../errors.js';
import { discoverRuns } from './discover.js';
import { compileFilters, type CompiledFilters } from './filters.js';
import { FindingGrouper } from './group.js';
import { DEFAULT_MAX_LINE_CHARS, forEachLine } from './line-reader.js';
import { readRunResult } from './read-run.js';
import { parseFindingLine } from './record.js';
import {
  MAX_LISTED_BROKEN,
  MAX_LISTED_INVALID,
  type BrokenLine,
  type InvalidObservation,
  type Report,
  type ReportFilters,
  type RunSummary,
} from './types.js';

export interface BuildReportOptions {
  /** The folder to search (CLI default: .ralph in the current directory). */
  runsDir: string;
  filters?: ReportFilters;
  /** Injected clock for generatedAt. */
  now?: Date;
  maxLineChars?: number;
}

export async function buildReport(options: BuildReportOptions): Promise<Report> {
  const filters = options.filters ?? {};
  const compiled = compileFilters(filters);
  const problems: Problem[] = [];
  const locations = await discoverRuns(options.runsDir, problems);
  const maxLineChars = options.maxLineChars ?? DEFAULT_MAX_LINE_CHARS;
  const grouper = new FindingGrouper();
  const invalid: InvalidObservation[] = [];
  const broken: BrokenLine[] = [];
  let invalidCount = 0;
  let brokenCount = 0;
  const runs: RunSummary[] = [];

  for (const loc of locations) {
    const fallbackRun = loc.rel === '.' ? basename(options.runsDir) : basename(loc.dir);
    const read = loc.result !== undefined ? readRunResult(loc.result, inRun(loc.rel, RUN_FILES.result)) : null;
    if (read?.ok === false) problems.push(read.problem);
    const result = read?.ok ? read.result : null;
    // The run's name and plan, when it has no result.json: its first record's.
    let firstRun: string | null = null;
    let firstPlan: string | null = null;
    let findings = 0;

    if (loc.findings !== undefined) {
      const file = inRun(loc.rel, RUN_FILES.findings);
      const noteBroken = (line: number, reason: string): void => {
        brokenCount += 1;
        if (broken.length < MAX_LISTED_BROKEN) broken.push({ file, line, reason });
      };
      const nameRun = (run: string, plan: string): void => {
        firstRun ??= run;
        if (firstPlan === null && plan !== '') firstPlan = plan;
      };
      const line = (text: string, n: number): void => {
        const parsed = parseFindingLine(text, fallbackRun);
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
      const tooLong = (n: number, chars: number): void => {
        noteBroken(n, `line of ${chars} characters is longer than the ${maxLineChars}-character limit`);
      };
      try {
        forEachLine(loc.findings, { line, tooLong }, maxLineChars);
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
      ...(result?.tasksVerified ? { tasksVerified: result.tasksVerified } : {}),
      ...(result?.receipts ? { receipts: result.receipts, costEstimated: result.costEstimated ?? false } : {}),
      ...(result?.iterationReceipts?.length ? { iterationReceipts: result.iterationReceipts } : {}),
      ...(result?.taskReceipts?.length ? { taskReceipts: result.taskReceipts } : {}),
      prUrl: result?.prUrl ?? null,
      startedAt: result?.startedAt ?? null,
      endedAt: result?.endedAt ?? null,
      findings,
      sandbox: result?.sandbox ?? null,
    };
    if (keepRun(run, compiled)) runs.push(run);
  }

  const groups = grouper.groups();
  return {
    version: 1,
    generatedAt: (options.now ?? new Date()).toISOString(),
    runsDir: options.runsDir,
    filters,
    summary: {
      runs: runs.length,
      occurrences: grouper.occurrences,
      distinct: groups.length,
      invalid: invalidCount,
      brokenLines: brokenCount,
      bySeverity: grouper.severityCounts(),
      outcomes: countOutcomes(runs),
      costUsd: runs.reduce((sum, r) => sum + (r.costUsd ?? 0), 0),
    },
    findings: groups,
    invalid,
    brokenLines: broken,
    runs,
    problems,
  };
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
