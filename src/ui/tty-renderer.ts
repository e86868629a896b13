// On a TTY: one cli-progress line at the bottom (iteration n/max, elapsed, cost, tokens, last
// signal, state) with the executor's output and ralph's own lines scrolling above it.
import cliProgress from 'cli-progress';
import type { RunEvent } from '../loop/events.js';
import { formatDuration } from '../util/duration.js';
import { waitLine } from './wait-line.js';
import { describeEvent } from './describe-event.js';
import type { Renderer, RendererOptions } from './renderer.js';
import { displayBudget } from './display-budget.js';
import { stripControl } from './sanitize.js';

const COLORS = { red: 31, green: 32, yellow: 33, dim: 2 } as const;
const MAX_PENDING = 64 * 1024;

export function ttyRenderer(o: RendererOptions): Renderer {
  const paint = (color: keyof typeof COLORS, text: string) => (o.color ? `\x1b[${COLORS[color]}m${text}\x1b[0m` : text);
  const bars = new cliProgress.MultiBar(
    {
      format: ' {bar} iteration {value}/{total} | {elapsed} | {cost} | {tokens} tok | {signal} | {state}',
      hideCursor: true,
      clearOnComplete: false,
      stopOnComplete: false,
      barsize: 16,
      stream: o.stdout as NodeJS.WriteStream,
      fps: 5,
      autopadding: true,
      // ralph owns SIGINT/SIGTERM: the first one must stop the executor, not just the bar.
      gracefulExit: false,
    },
    cliProgress.Presets.shades_classic,
  );
  let bar: cliProgress.SingleBar | undefined;
  let started = Date.now();
  const payload = { elapsed: '0s', cost: 'cost ?', tokens: '0', signal: '-', state: 'starting' };
  let iteration = 0;
  let pending = '';
  const budget = displayBudget(o.stdout);
  // cli-progress keeps logged lines until its next redraw (5 a second): a flood between two
  // redraws would pile up there, so a redraw is forced once enough is waiting.
  let logged = 0;
  const log = (text: string) => {
    bars.log(`${text}\n`);
    logged += text.length;
    if (logged > 256 * 1024) {
      logged = 0;
      bars.update();
    }
  };
  const update = () => {
    payload.elapsed = formatDuration(Date.now() - started);
    bar?.update(iteration, payload);
  };
  const ticker = setInterval(update, 1_000);
  ticker.unref();

  return {
    onEvent(e: RunEvent) {
      switch (e.type) {
        case 'run-start':
          started = Date.parse(e.startedAt) || Date.now();
          bar = bars.create(e.maxIterations, 0, payload);
          break;
        case 'iteration-start':
          iteration = e.iteration;
          payload.state = 'running';
          break;
        case 'output': {
          if (o.quiet) return;
          if (!budget.admit(e.text.length)) return;
          const dropped = budget.note();
          if (dropped !== undefined) log(dropped);
          pending += stripControl(e.text);
          const cut = pending.lastIndexOf('\n');
          if (cut !== -1) {
            log(pending.slice(0, cut));
            pending = pending.slice(cut + 1);
          }
          if (pending.length > MAX_PENDING) {
            log(pending);
            pending = '';
          }
          return;
        }
        case 'usage':
          if (e.totalCostUsd !== null) payload.cost = `$${e.totalCostUsd.toFixed(4)}`;
          payload.tokens = String(e.totalTokens.input + e.totalTokens.output + e.totalTokens.cacheRead + e.totalTokens.cacheWrite);
          break;
        case 'signal':
          payload.signal = stripControl(e.name);
          break;
        case 'gate':
          payload.state = e.accepted ? 'accepted' : 'rejected';
          break;
        case 'run-end':
          payload.state = e.outcome;
          break;
        case 'wait_start':
          payload.state = waitLine(e.kind, new Date(e.until), new Date());
          break;
        default:
          break;
      }
      const text = describeEvent(e);
      if (text !== undefined) {
        if (pending) {
          log(pending);
          pending = '';
        }
        const colored =
          e.type === 'warning' || e.type === 'silence' || e.type === 'near_miss' ? paint('yellow', text)
          : e.type === 'run-end' ? paint(e.outcome === 'complete' ? 'green' : 'red', text)
          : paint('dim', text);
        log(`ralph: ${colored}`);
      }
      update();
    },
    note(text) {
      log(text);
    },
    close() {
      clearInterval(ticker);
      if (pending) log(pending);
      const dropped = budget.note(true);
      if (dropped !== undefined) log(dropped);
      update();
      // log() lines wait for the next redraw; stop() alone would drop the last ones.
      bars.update();
      bars.stop();
    },
  };
}
