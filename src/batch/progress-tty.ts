// On a terminal: an overall bar (plans finished of plans to run) and one line per running plan
// with its iteration, cost and last signal; finished plans and warnings are logged above them.
import cliProgress from 'cli-progress';
import type { ProgressRenderer } from './progress.js';
import { describe } from './progress-line.js';
import { oneLine } from './one-line.js';
import { formatCost } from './result-file.js';

interface PlanLine {
  bar: cliProgress.SingleBar;
  iteration: number;
  max: number;
  cost: number | null;
  last: string;
}

export function createTtyProgress(out: NodeJS.WritableStream): ProgressRenderer {
  const multi = new cliProgress.MultiBar(
    { stream: out, gracefulExit: false, hideCursor: true, clearOnComplete: false, stopOnComplete: false, fps: 5, autopadding: true, format: '{bar} {value}/{total} plans finished' },
    cliProgress.Presets.shades_classic,
  );
  let overall: cliProgress.SingleBar | null = null;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    multi.update(); // flushes lines logged since the last redraw
    multi.stop();
  };
  const plans = new Map<string, PlanLine>();
  const payload = (plan: string, p: PlanLine) => ({
    plan,
    text: `${p.iteration === 0 ? 'starting' : `iteration ${p.iteration}/${p.max}`} | ${formatCost(p.cost)} | ${p.last}`,
  });
  // Redraw at once on the few events that change a line, rather than waiting for the next tick.
  const refresh = (plan: string, p: PlanLine) => {
    p.bar.update(p.iteration, payload(plan, p));
    if (!stopped) multi.update();
  };

  return {
    onEvent: (e) => {
      switch (e.type) {
        case 'batch-start':
          overall = multi.create(e.toRun.length, 0);
          break;
        case 'plan-start': {
          const old = plans.get(e.plan);
          if (old) multi.remove(old.bar);
          const p: PlanLine = { bar: null as unknown as cliProgress.SingleBar, iteration: 0, max: 0, cost: null, last: `attempt ${e.attempt}` };
          p.bar = multi.create(1, 0, payload(e.plan, p), { format: '  {plan} | {text}' });
          plans.set(e.plan, p);
          refresh(e.plan, p);
          break;
        }
        case 'run': {
          const p = plans.get(e.plan);
          if (!p) break;
          const ev = e.event;
          if (ev.type === 'iteration-start') {
            p.iteration = ev.iteration;
            p.max = ev.maxIterations;
            p.bar.setTotal(Math.max(1, ev.maxIterations));
          } else if (ev.type === 'usage') {
            p.cost = ev.totalCostUsd;
          } else if (ev.type === 'signal') {
            p.last = oneLine(ev.name, 40);
          } else {
            break;
          }
          refresh(e.plan, p);
          break;
        }
        case 'plan-end': {
          const p = plans.get(e.plan);
          if (p) multi.remove(p.bar);
          plans.delete(e.plan);
          overall?.increment();
          multi.log(`${describe(e)}\n`);
          break;
        }
        case 'plan-retry':
        case 'warning':
          multi.log(`${describe(e)}\n`);
          break;
        case 'batch-end':
          // Bars stop first so the last line is not redrawn over.
          stop();
          out.write(`${describe(e)}\n`);
          break;
        default: {
          const never: never = e;
          void never;
        }
      }
    },
    stop,
  };
}
