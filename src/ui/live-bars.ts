// The few lines at the bottom of a terminal that redraw in place (a run's status line, a batch's
// running plans), drawn by cli-progress, with ralph's other lines printed above them
// (docs/first-hour.md). `linewrap: true` keeps the terminal's line wrap on (cli-progress's
// default turns it off with ESC[?7l, and the terminal then cuts every long line at the last
// column): a printed line is never cut, the terminal wraps it. Only the live lines are fitted
// narrower than the terminal, so they never wrap and cli-progress always knows how many rows to
// go back up to redraw them.
import cliProgress from 'cli-progress';
import { stripControl } from './sanitize.js';

export interface LiveStream {
  write(text: string): unknown;
  columns?: number;
  isTTY?: boolean;
}

export interface LiveBars {
  /** Prints whole lines above the live lines (on the next redraw while they are shown). */
  print(text: string): void;
  /** Replaces the live lines (drawn now). */
  set(lines: string[]): void;
  /** Erases the live lines for good; later prints go straight out. */
  clear(): void;
}

/** Lines waiting in cli-progress's log buffer past which a redraw is forced (docs/hostile.md). */
const WAITING_HIGH_WATER = 64 * 1024;

/** Characters that take two columns (CJK, full-width forms, most emoji). */
function wide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/**
 * `text` cut to at most `width` columns, with an ellipsis when cut. Control characters are
 * dropped. A character counts as many columns as it takes or as UTF-16 units it holds, whichever
 * is more: cli-progress cuts what it writes by UTF-16 units, so both must fit.
 */
export function fitWidth(text: string, width: number): string {
  const chars = Array.from(stripControl(text).replace(/[\r\n\t]/g, ' '));
  const widthOf = (ch: string) => Math.max(wide(ch.codePointAt(0)!) ? 2 : 1, ch.length);
  if (chars.reduce((sum, ch) => sum + widthOf(ch), 0) <= width) return chars.join('');
  let used = 0;
  let out = '';
  for (const ch of chars) {
    if (used + widthOf(ch) > width - 1) break;
    out += ch;
    used += widthOf(ch);
  }
  return `${out}…`;
}

export function createLiveBars(stream: LiveStream, paint: (line: string) => string = (l) => l): LiveBars {
  const overhead = paint('').length;
  const multi = new cliProgress.MultiBar({
    stream: stream as NodeJS.WriteStream,
    linewrap: true,
    // ralph owns SIGINT and SIGTERM: the first one stops the agent and saves the run.
    gracefulExit: false,
    // A second Ctrl+C exits at once, with no chance to show a hidden cursor again.
    hideCursor: false,
    clearOnComplete: true,
    stopOnComplete: false,
    // Every redraw erases the live rows first (below), so every live line is drawn again.
    forceRedraw: true,
    fps: 5,
    // No fill bar: the line is ours. One column spare: a line exactly as wide as the terminal
    // leaves some terminals waiting to wrap. `maxWidth` is the width cli-progress cuts at.
    format: (_options, params, payload: { line: string }) => paint(fitWidth(payload.line, Math.max(10, params.maxWidth - 1 - overhead))),
  });
  let waiting = 0;
  // cli-progress clears only the first live row before it writes the lines logged since the last
  // redraw: a short line written over a longer live row would keep that row's end. Erase them all.
  multi.on('redraw-pre', () => {
    waiting = 0;
    stream.write('\x1b[J');
  });
  const bars: cliProgress.SingleBar[] = [];
  let state: 'before' | 'live' | 'cleared' = 'before';

  return {
    print(text) {
      const body = text.endsWith('\n') ? text : `${text}\n`;
      if (state !== 'live') {
        stream.write(body);
        return;
      }
      // Logged lines wait in memory until the next redraw (5 a second): a flood between two
      // redraws would pile up there, so a redraw is forced once enough is waiting.
      multi.log(body);
      waiting += body.length;
      if (waiting > WAITING_HIGH_WATER) multi.update();
    },
    set(lines) {
      if (state === 'cleared') return;
      state = 'live';
      while (bars.length > lines.length) multi.remove(bars.pop()!);
      lines.forEach((line, i) => {
        if (bars[i]) bars[i].update(0, { line });
        else bars.push(multi.create(1, 0, { line }));
      });
      multi.update();
    },
    clear() {
      if (state === 'live') {
        multi.update(); // the lines logged since the last redraw
        multi.stop();
        // clearOnComplete erased the rows already (ESC[0J). The redraws' own ESC[J once more
        // costs nothing and keeps one mark for "the live lines end here" right before whatever
        // is printed next (test/batch/progress-tty.test.ts looks for it).
        stream.write('\x1b[J');
      }
      state = 'cleared';
    },
  };
}
