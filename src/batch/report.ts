// The batch's observations report, `{out}/report.md`: the findings report over the batch's run
// directories. A failure here is only a warning in the index; the plans' results stand.
import { join } from 'node:path';
import { buildReport, renderReport } from '../findings/report/index.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { REPORT_FILE } from './index-file.js';
import { RUNS_DIR } from './run-attempt.js';

/** Writes the report; resolves to null on success, else to a warning for the index. */
export type ReportWriter = (out: string) => Promise<string | null>;

export const writeBatchReport: ReportWriter = async (out) => {
  try {
    const report = await buildReport({ runsDir: join(out, RUNS_DIR) });
    await writeFileAtomic(join(out, REPORT_FILE), renderReport(report, 'md'));
    return null;
  } catch (error) {
    return `the observations report could not be written: ${(error as Error).message}`;
  }
};
