// The work of `ralph report`, loaded only when the command runs.
import { fstatSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { isatty } from 'node:tty';
import { RUN_FILES } from '../contract.js';
import { UsageError } from '../errors.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { buildReport, parseFilters, renderReport, renderReportChunks, REPORT_FORMATS, type ReportFormat } from '../findings/report/index.js';
import type { CliContext } from './context.js';
import type { ReportFlags } from './commands/report.js';

export async function reportCommand(flags: ReportFlags, ctx: CliContext): Promise<void> {
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
  const runsDir = flags.runs ?? RUN_FILES.root;
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
