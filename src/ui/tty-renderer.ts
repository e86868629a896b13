// On a terminal (docs/first-hour.md): ralph's lines and the executor's output scroll on stderr,
// with one status line at the bottom (iteration of the maximum, elapsed time, cost, tokens, last
// signal, state) redrawn in place. No fill bar: iterations used of the maximum is not progress a
// person can read. The status line is erased before anything is printed and for good when the
// run ends, so no line of ralph's is ever cut or overwritten.
import type { LimitKind } from '../executors/types.js';
import type { RunEvent } from '../loop/events.js';
import { formatDuration } from '../util/duration.js';
import { waitLine } from './wait-line.js';
import { describeEvent } from './describe-event.js';
import { createLiveBars } from './live-bars.js';
import { displayBudget } from './display-budget.js';
import type { Renderer, RendererOptions } from './renderer.js';
import { stripControl } from './sanitize.js';
import { toolLabel } from './tool-label.js';

const COLORS = { red: 31, green: 32, yellow: 33, dim: 2 } as const;
const MAX_PENDING = 64 * 1024;

export function ttyRenderer(o: RendererOptions): Renderer {
  const paint = (color: keyof typeof COLORS, text: string) => (o.color ? `\x1b[${COLORS[color]}m${text}\x1b[0m` : text);
  const area = createLiveBars(o.stderr, (line) => paint('dim', line));
  const now = o.clock ?? (() => new Date());
  const s = { started: now().getTime(), iteration: 0, max: 0, cost: null as number | null, tokens: 0, signal: 'none yet', state: 'starting', live: false, tasks: null as string | null };
  // A wait is kept as what and until when, not as text: every redraw counts down anew.
  let wait: { kind: LimitKind; until: Date } | null = null;
  // The last tool the agent started, and when: during a long tool call it says what is going on.
  let tool: { label: string; at: number } | null = null;
  let pending = '';
  // Behind a slow terminal the agent's output is dropped with a note, never ralph's lines (docs/hostile.md).
  const budget = displayBudget(o.stderr);
  const noteDropped = (final = false) => {
    const dropped = budget.note(final);
    if (dropped !== undefined) area.print(dropped);
  };

  let lastLines: string[] | undefined;
  const statusLine = () => {
    const iteration = s.iteration === 0 ? 'starting' : `iteration ${s.iteration} (max ${s.max})`;
    const cost = s.cost === null ? 'cost unknown' : `$${s.cost.toFixed(4)}`;
    // A total of 0 means the executor reported no usage (a plain text stream), not zero tokens.
    const tokens = s.tokens === 0 ? 'tokens unknown' : `${s.tokens.toLocaleString('en-US')} tokens`;
    // Most telling first: a narrow terminal cuts the end of the line, never wraps it.
    const state = wait ? waitLine(wait.kind, wait.until, now()) : s.state;
    const last = tool && !wait ? ` · ${tool.label} · ${formatDuration(now().getTime() - tool.at)}` : '';
    // "tasks 2/3 verified" next to the state: how far the work is, as ralph measured it.
    const tasks = s.tasks === null ? '' : ` · ${s.tasks}`;
    // Before the first iteration both say "starting": once is enough.
    return `ralph ▸ ${iteration}${s.iteration === 0 && state === 'starting' ? '' : ` · ${state}`}${tasks}${last} · signal ${s.signal} · ${formatDuration(now().getTime() - s.started)} · ${cost} · ${tokens}`;
  };
  const redraw = () => {
    if (s.live) area.set([statusLine()]);
  };
  const ticker = setInterval(redraw, 1_000);
  ticker.unref();
  const flushPending = () => {
    if (pending) area.print(pending);
    pending = '';
  };

  return {
    onEvent(e: RunEvent) {
      switch (e.type) {
        case 'run-start':
          s.started = Date.parse(e.startedAt) || now().getTime();
          s.max = e.maxIterations;
          s.live = true;
          break;
        case 'iteration-start':
          s.iteration = e.iteration;
          s.max = e.maxIterations;
          s.state = 'running';
          wait = null;
          tool = null;
          break;
        case 'tool':
          if (e.phase === 'call') tool = { label: toolLabel(e.name, e.summary), at: now().getTime() };
          break;
        case 'output': {
          if (o.quiet) return;
          if (!budget.admit(e.text.length)) return;
          noteDropped();
          pending += stripControl(e.text);
          const cut = pending.lastIndexOf('\n');
          if (cut !== -1) {
            area.print(pending.slice(0, cut));
            pending = pending.slice(cut + 1);
          }
          if (pending.length > MAX_PENDING) flushPending();
          return;
        }
        case 'usage':
          if (e.totalCostUsd !== null) s.cost = e.totalCostUsd;
          s.tokens = e.totalTokens.input + e.totalTokens.output + e.totalTokens.cacheRead + e.totalTokens.cacheWrite;
          break;
        case 'signal':
          s.signal = stripControl(e.name);
          break;
        case 'gate':
          s.state = e.accepted ? 'claim accepted' : 'claim rejected';
          break;
        case 'tasks':
          s.tasks = e.verified;
          break;
        case 'run-end':
          s.state = e.outcome;
          s.live = false;
          wait = null;
          tool = null;
          break;
        case 'wait_start':
          wait = { kind: e.kind, until: new Date(e.until) };
          break;
        case 'wait_end':
          wait = null;
          break;
        default:
          break;
      }
      const text = describeEvent(e);
      if (text !== undefined) {
        flushPending();
        const color =
          e.type === 'warning' || e.type === 'silence' || e.type === 'near_miss' || (e.type === 'gate' && !e.accepted) ? 'yellow'
          : e.type === 'run-end' ? (e.outcome === 'complete' ? 'green' : 'red')
          : 'dim';
        // The run's last lines wait for close(), so they are the last on the screen: after the
        // status line is gone, and after warnings of notifications flushed once the run ended.
        if (e.type === 'run-end') lastLines = text.split('\n').map((line) => `ralph: ${paint(color, line)}`);
        else for (const line of text.split('\n')) area.print(`ralph: ${paint(color, line)}`);
      }
      redraw();
    },
    note(text) {
      flushPending();
      area.print(text);
    },
    close() {
      clearInterval(ticker);
      flushPending();
      noteDropped(true);
      area.clear();
      for (const line of lastLines ?? []) area.print(line);
      lastLines = undefined;
    },
  };
}
