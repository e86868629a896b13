// `ralph report`: the observations report across runs (docs/commands.md#ralph-report). Only the options live here;
// the work is loaded when the command runs.
import { Option } from 'commander';
import { RUN_FILES, SEVERITIES } from '../../contract.js';
import type { RegisterCommand } from '../context.js';

export interface ReportFlags {
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
      const { reportCommand } = await import('../report-command.js');
      await reportCommand(flags, ctx);
    });
};
