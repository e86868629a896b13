// `ralph report`: the observations report across runs (CONTRACT §5).
import { resolve } from 'node:path';
import { Option } from 'commander';
import { RUN_FILES, SEVERITIES } from '../../contract.js';
import { UsageError } from '../../errors.js';
import { writeFileAtomic } from '../../util/atomic-write.js';
import { buildReport, parseFilters, renderReport, REPORT_FORMATS, type ReportFormat } from '../../findings/report/index.js';
import type { RegisterCommand } from '../context.js';

interface ReportFlags {
  runs?: string;
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
    .option('--runs <dir>', `folder searched for runs (default: ${RUN_FILES.root} in the current directory)`)
    .addOption(new Option('--format <format>', 'md, html or json').default('md'))
    .option('--out <file>', 'write the report to FILE (atomically) instead of stdout')
    .option('--min-severity <severity>', `only findings at least this severe (${SEVERITIES.join(', ')})`)
    .option('--type <type>', 'only these types (repeat or comma-separate)', collect, [])
    .option('--action <action>', 'only these actions (repeat or comma-separate)', collect, [])
    .option('--plan <plan>', 'only these plan ids (repeat or comma-separate)', collect, [])
    .option('--since <when>', 'only findings since a duration ago (24h, 7d) or an ISO date')
    .action(async (flags: ReportFlags) => {
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
      const text = renderReport(report, flags.format as ReportFormat);
      if (flags.out !== undefined) {
        await writeFileAtomic(resolve(flags.out), text);
        ctx.stderr.write(`ralph: report written to ${flags.out}\n`);
      } else {
        ctx.stdout.write(text);
      }
      if (report.summary.brokenLines > 0) {
        ctx.stderr.write(`ralph: warning: skipped ${report.summary.brokenLines} unreadable line(s) in findings logs (listed in the report)\n`);
      }
      for (const p of report.problems) ctx.stderr.write(`ralph: warning: ${p.file}: ${p.message}\n`);
    });
};

function hasFilters(f: object): boolean {
  return Object.keys(f).length > 0;
}
