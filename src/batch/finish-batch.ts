// The end of a batch, local or queued (docs/batch.md, docs/queue.md): its rows read back from the
// result files, report.md, index.md and the final batch.json written, and `batch-end` told.
import { join } from 'node:path';
import { writeFileAtomic } from '../util/atomic-write.js';
import { writeBatchFile, type BatchFile } from './batch-file.js';
import type { BatchEvent } from './events.js';
import { batchExitCode, countComplete, INDEX_FILE, readRows, renderIndex, REPORT_FILE } from './index-file.js';
import { writeBatchReport, type ReportWriter } from './report.js';
import type { BatchSummary } from './types.js';

export async function finishBatch(o: {
  file: BatchFile;
  notes: Map<string, string[]>;
  interrupted: boolean;
  emit: (e: BatchEvent) => void;
  now: () => Date;
  writeReport?: ReportWriter;
}): Promise<BatchSummary> {
  const { file, interrupted, emit } = o;
  const { out, batchId } = file;
  const rows = await readRows(out, file.plans, o.notes);
  const reportWarning = await (o.writeReport ?? writeBatchReport)(out);
  if (reportWarning) emit({ type: 'warning', message: reportWarning });
  const indexPath = join(out, INDEX_FILE);
  await writeFileAtomic(indexPath, renderIndex(batchId, rows, { report: reportWarning ? null : REPORT_FILE, warnings: reportWarning ? [reportWarning] : [] }));
  const exitCode = batchExitCode(rows, interrupted);
  const complete = countComplete(rows);
  await writeBatchFile(out, { ...file, updatedAt: o.now().toISOString(), status: interrupted ? 'interrupted' : 'done', complete, exitCode, results: rows.map(({ receipts: _inIndexOnly, ...row }) => row) });
  emit({ type: 'batch-end', complete, total: rows.length, exitCode, interrupted, index: indexPath });
  return { batchId, out, total: rows.length, complete, interrupted, exitCode, rows };
}
