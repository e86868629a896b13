// `ralph report`: the observations report across runs (docs/commands.md#ralph-report). The options, and
// the work, whose modules are loaded only when the command runs.
import { Option } from 'commander';
import { RUN_FILES, SEVERITIES } from '../contract.js';
import type { CliContext, RegisterCommand } from './context.js';

import { fstatSync, writeSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { isatty } from 'node:tty';
import { UsageError } from '../errors.js';
import { findRun } from '../runs/find-run.js';
import { ralphDir } from '../runs/project-root.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import type { ReportFormat } from '../findings/report/index.js';

export interface ReportFlags {
  runs?: string;
  run?: string;
  format: string;
  out?: string;
  minSeverity?: string;
  type: string[];
  action: string[];
  plan: string[];
  since?: string;
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export const registerReport: RegisterCommand = (program, ctx) => {
  program
    .command('report')
    .description('the observations report across runs, grouped by severity, type and action')
    .option('--runs <dir>', `folder searched for runs (default: the project's ${RUN_FILES.root}/)`)
    .option('--run <id>', 'only this run: an id as `ralph runs` lists it, or latest')
    .addOption(new Option('--format <format>', 'md, html or json').default('md'))
    .option('--out <file>', 'write the report to FILE (atomically) instead of stdout')
    .option('--min-severity <severity>', `only findings at least this severe (${SEVERITIES.join(', ')})`)
    .option('--type <type>', 'only these types (repeat or comma-separate)', collect, [])
    .option('--action <action>', 'only these actions (repeat or comma-separate)', collect, [])
    .option('--plan <plan>', 'only these plan ids (repeat or comma-separate)', collect, [])
    .option('--since <when>', 'only findings since a duration ago (24h, 7d) or an ISO date')
    .action(async (flags: ReportFlags) => {
      await reportCommand(flags, ctx);
    });
};

export async function reportCommand(flags: ReportFlags, ctx: CliContext): Promise<void> {
  // Loaded here so other commands do not pay for the report's modules at start-up.
  const { buildReport, parseFilters, renderReport, renderReportChunks, REPORT_FORMATS } = await import('../findings/report/index.js');
  if (!(REPORT_FORMATS as readonly string[]).includes(flags.format)) {
    throw new UsageError(`--format: unknown format ${JSON.stringify(flags.format)}`, `Choose one of: ${REPORT_FORMATS.join(', ')}.`);
  }
  const filters = parseFilters({
    minSeverity: flags.minSeverity,
    type: flags.type,
    action: flags.action,
    plan: flags.plan,
    since: flags.since,
  });
  if (flags.run !== undefined && flags.runs !== undefined) throw new UsageError('--run and --runs cannot be combined', 'Give --run <id> for one run, or --runs <dir> for every run in a folder.');
  const cwd = process.cwd();
  const runsDir = flags.runs ?? (flags.run !== undefined ? findRun(cwd, flags.run).dir : relativeIfInside(ralphDir(cwd), cwd));
  const report = await buildReport({ runsDir, filters });
  if (report.runs.length === 0 && report.summary.occurrences === 0 && report.summary.invalid === 0 && report.summary.brokenLines === 0) {
    ctx.stdout.write(`No runs found under ${runsDir} (no ${RUN_FILES.findings} or ${RUN_FILES.result}${hasFilters(filters) ? ' matching the filters' : ''}).\n`);
    return;
  }
  const format = flags.format as ReportFormat;
  if (flags.out !== undefined) {
    await writeFileAtomic(resolve(flags.out), renderReport(report, format));
    ctx.stderr.write(`ralph: report written to ${flags.out}\n`);
  } else {
    // Piece by piece: a 30 MB report never has to exist as one string to be encoded at once.
    writeChunks(ctx.stdout, renderReportChunks(report, format));
  }
  if (report.summary.brokenLines > 0) {
    ctx.stderr.write(`ralph: warning: skipped ${report.summary.brokenLines} unreadable line(s) in findings logs (listed in the report)\n`);
  }
  for (const p of report.problems) ctx.stderr.write(`ralph: warning: ${p.file}: ${p.message}\n`);
}

/**
 * Standard output redirected to a file (or /dev/null) is written straight to its descriptor:
 * process.stdout copies each piece into a Buffer of its own first, which for a 33 MB report cost
 * as much as serialising it. Terminals and pipes keep process.stdout (a pipe may be non-blocking).
 */
function writeChunks(out: NodeJS.WritableStream, chunks: Iterable<string>): void {
  const fd = out === process.stdout ? fileDescriptorOfStdout() : undefined;
  for (const chunk of chunks) {
    if (fd === undefined) {
      out.write(chunk);
    } else {
      // Text goes without a Buffer of its own unless the system took only part of it.
      const written = writeSync(fd, chunk);
      if (written < Buffer.byteLength(chunk)) {
        const bytes = Buffer.from(chunk);
        for (let at = written; at < bytes.length; ) at += writeSync(fd, bytes, at);
      }
    }
  }
}

function fileDescriptorOfStdout(): number | undefined {
  if (isatty(1)) return undefined;
  try {
    const info = fstatSync(1);
    return info.isFile() || info.isCharacterDevice() ? 1 : undefined;
  } catch {
    return undefined;
  }
}

function hasFilters(f: object): boolean {
  return Object.keys(f).length > 0;
}

/** `dir` as the report names it: relative to `cwd` when inside it (as `.ralph` was before), else whole. */
function relativeIfInside(dir: string, cwd: string): string {
  const rel = relative(cwd, dir);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel : dir;
}
