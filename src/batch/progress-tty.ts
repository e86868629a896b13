// On a terminal (stderr): a line with the plans finished of the plans to run, and one line per
// running plan with its iteration, cost and last signal, redrawn in place at the bottom; finished
// plans and warnings are printed above them, whole (docs/first-hour.md).
import { createLiveBars, type LiveStream } from '../ui/live-bars.js';
import type { ProgressRenderer } from './progress.js';
import { describe } from './progress-line.js';
import { oneLine } from './one-line.js';
import { formatCost } from './result-file.js';

interface PlanLine {
  iteration: number;
  max: number;
  cost: number | null;
  last: string;
}

export function createTtyProgress(out: NodeJS.WritableStream & LiveStream): ProgressRenderer {
  const area = createLiveBars(out);
  let total = 0;
  let finished = 0;
  let started = false;
  const plans = new Map<string, PlanLine>();
  const redraw = () => {
    if (!started) return;
    const lines = [`ralph ▸ ${finished}/${total} plans finished`];
    for (const [plan, p] of plans) {
      lines.push(`  ${plan} | ${p.iteration === 0 ? 'starting' : `iteration ${p.iteration} (max ${p.max})`} | ${formatCost(p.cost)} | ${p.last}`);
    }
    area.set(lines);
  };
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    area.clear();
  };

  return {
    onEvent: (e) => {
      switch (e.type) {
        case 'batch-start':
          total = e.toRun.length;
          started = true;
          area.print(describe(e)!);
          break;
        case 'plan-start':
          plans.set(e.plan, { iteration: 0, max: 0, cost: null, last: `attempt ${e.attempt}` });
          break;
        case 'run': {
          const p = plans.get(e.plan);
          if (!p) return;
          const ev = e.event;
          if (ev.type === 'iteration-start') {
            p.iteration = ev.iteration;
            p.max = ev.maxIterations;
          } else if (ev.type === 'usage') {
            p.cost = ev.totalCostUsd;
          } else if (ev.type === 'signal') {
            p.last = oneLine(ev.name, 40);
          } else {
            return;
          }
          break;
        }
        case 'plan-end':
          plans.delete(e.plan);
          finished++;
          area.print(describe(e)!);
          break;
        case 'plan-retry':
        case 'delivered':
        case 'warning':
          area.print(describe(e)!);
          break;
        case 'batch-end':
          // The live lines go first, so the batch's last line is the last on the screen.
          stop();
          out.write(`${describe(e)}\n`);
          return;
        default: {
          const never: never = e;
          void never;
        }
      }
      if (!stopped) redraw();
    },
    stop,
  };
}
