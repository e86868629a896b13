// The words for each batch event, shared by the plain renderer and the log above the TTY bars.
import type { BatchEvent } from './events.js';
import { dirname } from 'node:path';
import { oneLine } from './one-line.js';
import { waitLine } from '../ui/wait-line.js';
import { configNote } from '../ui/describe-event.js';
import { formatCost } from './result-file.js';

/** A one-line description of an event, or null when it is not worth a line. */
export function describe(e: BatchEvent): string | null {
  switch (e.type) {
    case 'batch-start':
      if (e.queue) return `batch ${e.batchId}: ${e.toRun.length} of ${e.plans.length} plans on the queue ${e.queue}; results in ${e.out}${configNote(e.config)}`;
      return `batch ${e.batchId}: ${e.toRun.length} of ${e.plans.length} plans to run, ${e.concurrency} at a time${e.isolate === 'worktree' ? ', each in its own worktree' : ''}; results in ${e.out}${configNote(e.config)}`;
    case 'plan-start':
      return `${e.plan}: attempt ${e.attempt} started${e.branch ? ` on ${e.branch}` : ''}${e.worker ? ` by worker ${oneLine(e.worker, 120)}` : ''}`;
    case 'run': {
      const ev = e.event;
      if (ev.type === 'iteration-start') return `${e.plan}: iteration ${ev.iteration}/${ev.maxIterations}`;
      if (ev.type === 'signal') return `${e.plan}: signal ${oneLine(ev.name, 40)}${ev.args.length ? ` (${oneLine(ev.args.join(', '), 120)})` : ''}`;
      if (ev.type === 'gate' && !ev.accepted) return `${e.plan}: claim rejected: ${oneLine(ev.reason, 160)}`;
      if (ev.type === 'wait_start') return `${e.plan}: ${waitLine(ev.kind, new Date(ev.until), new Date())}`;
      return null;
    }
    case 'plan-retry':
      return `${e.plan}: ${e.outcome} (${oneLine(e.reason, 160)}); retrying as attempt ${e.attempt}`;
    case 'plan-end':
      return `${e.plan}: ${e.outcome}, verdict ${e.verdict}, ${e.iterations ?? '?'} iteration${e.iterations === 1 ? '' : 's'}, ${formatCost(e.costUsd)}${e.outcome === 'complete' ? '' : ` (${oneLine(e.reason, 160)})`}`;
    case 'delivered':
      return `${e.plan}: ${oneLine(e.note, 300)}${e.prUrl ? ` ${oneLine(e.prUrl, 300)}` : ''}`;
    case 'warning':
      return `${e.plan ? `${e.plan}: ` : ''}warning: ${oneLine(e.message, 300)}`;
    case 'batch-end':
      return `[${e.complete}/${e.total} plans complete]${e.interrupted ? ` (interrupted; continue with: ralph batch --resume ${dirname(e.index)})` : ''} index: ${e.index}`;
    default: {
      const never: never = e;
      return never;
    }
  }
}
