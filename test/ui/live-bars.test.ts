// The live lines at the bottom of a terminal, drawn by cli-progress (docs/first-hour.md), read
// back through a terminal emulator: printed lines are whole and nothing of a live line is left.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLiveBars, fitWidth } from '../../src/ui/live-bars.js';
import { screenOf } from '../helpers/terminal.js';

function terminal(columns: number) {
  const out = Object.assign(new PassThrough(), { isTTY: true, columns });
  let raw = '';
  out.on('data', (d: Buffer) => (raw += d.toString()));
  return { out, raw: () => raw };
}

describe('live bars', () => {
  it('lines printed under several live lines are whole: no end of a longer live row is left on them', async () => {
    const t = terminal(40);
    const bars = createLiveBars(t.out);
    bars.set(['A'.repeat(30), 'B'.repeat(30), 'C'.repeat(30)]);
    bars.print('x');
    bars.print('y');
    bars.set(['A'.repeat(30), 'B'.repeat(30)]);
    bars.clear();
    t.out.write('the end\n');
    // A pty's line discipline turns each \n into \r\n on the way to the terminal.
    const screen = await screenOf(t.raw().replace(/\n/g, '\r\n'), 40, 10);
    expect(screen.lines).toEqual(['x', 'y', 'the end']);
    expect(t.raw()).not.toContain('\u001b[?7l');
  });

  it('a flood printed between two redraws is written out at once, not kept in memory', () => {
    const t = terminal(80);
    const bars = createLiveBars(t.out);
    bars.set(['status']);
    const line = 'z'.repeat(1000);
    for (let i = 0; i < 200; i++) bars.print(line);
    // 200 KB printed with no timer run: all but the last 64 KB at most are on the stream already.
    expect(t.raw().split(line).length - 1).toBeGreaterThanOrEqual(200 - 65);
    bars.clear();
    expect(t.raw().split(line).length - 1).toBe(200);
  });

  it('a coloured live line is fitted inside the terminal with its colour codes whole', () => {
    const t = terminal(20);
    const bars = createLiveBars(t.out, (l) => `\u001b[2m${l}\u001b[0m`);
    bars.set(['ralph ▸ '.padEnd(60, 'x')]);
    bars.clear();
    const drawn = t.raw().split(/\u001b\[J/).find((s) => s.includes('ralph ▸'))!;
    expect(drawn).toContain('…\u001b[0m');
    expect(Array.from(drawn.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')).length).toBeLessThan(20);
  });

  it('fitWidth counts wide characters as two columns and surrogate pairs as two units', () => {
    expect(fitWidth('abcdef', 6)).toBe('abcdef');
    expect(fitWidth('abcdefg', 6)).toBe('abcde…');
    expect(fitWidth('日本語の文字', 6)).toBe('日本…');
    const cut = fitWidth('😀😀😀😀', 6);
    expect(cut).toBe('😀😀…');
    expect(cut.length).toBeLessThanOrEqual(6);
  });
});
