// The few lines at the bottom of a terminal that redraw in place (a run's status line, a batch's
// running plans), with ralph's other lines printed above them (docs/first-hour.md). Line wrap
// stays on, so a printed line is never cut: the terminal wraps it. Only the live lines are kept
// narrower than the terminal, so they never wrap and the cursor always knows how many rows to
// go back up to erase them. Every printed line first erases the live lines, then redraws them.
import { stripControl } from './sanitize.js';

export interface LiveStream {
  write(text: string): unknown;
  columns?: number;
}

export interface LiveArea {
  /** Prints whole lines above the live lines. */
  print(text: string): void;
  /** Replaces the live lines (drawn now). */
  set(lines: string[]): void;
  /** Erases the live lines for good; later prints go straight out. */
  clear(): void;
}

const ESC = '\x1b[';

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

/** `text` cut to at most `width` columns, with an ellipsis when cut. Control characters are dropped. */
export function fitWidth(text: string, width: number): string {
  const chars = Array.from(stripControl(text).replace(/[\r\n\t]/g, ' '));
  const widthOf = (ch: string) => (wide(ch.codePointAt(0)!) ? 2 : 1);
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

export function createLiveArea(stream: LiveStream, paint: (line: string) => string = (l) => l): LiveArea {
  let lines: string[] = [];
  let drawn = 0;
  let cleared = false;
  // One column spare: a line exactly as wide as the terminal leaves some terminals waiting to wrap.
  // A pty whose size was never set reports 0 columns: COLUMNS, else 80, is the best guess then.
  const width = () => Math.max(10, (stream.columns || Number(process.env.COLUMNS) || 80) - 1);

  const erase = () => {
    if (drawn === 0) return '';
    const up = drawn > 1 ? `${ESC}${drawn - 1}A` : '';
    drawn = 0;
    return `\r${up}${ESC}J`;
  };
  const draw = () => {
    if (cleared || lines.length === 0) return '';
    const w = width();
    drawn = lines.length;
    return lines.map((l) => paint(fitWidth(l, w))).join('\n');
  };

  return {
    print(text) {
      const body = text.endsWith('\n') ? text : `${text}\n`;
      stream.write(`${erase()}${body}${draw()}`);
    },
    set(next) {
      if (cleared) return;
      lines = next;
      stream.write(`${erase()}${draw()}`);
    },
    clear() {
      if (cleared) return;
      cleared = true;
      const e = erase();
      if (e) stream.write(e);
    },
  };
}
