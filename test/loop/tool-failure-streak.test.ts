import { describe, expect, it } from 'vitest';
import { RunBus } from '../../src/loop/bus.js';
import type { RunEvent } from '../../src/loop/events.js';
import { watchToolFailureStreak } from '../../src/loop/tool-failure-streak.js';
import { cutAtWord, failureLine } from '../../src/util/failure-line.js';

describe('failureLine: what failed, in one line', () => {
  it('quotes the first meaningful line of the output beside a bare exit code', () => {
    expect(failureLine('exit code 1\n\n---\nbwrap: execvp codex-linux-sandbox: No such file or directory\nmore')).toBe(
      'exit code 1: bwrap: execvp codex-linux-sandbox: No such file or directory',
    );
    expect(failureLine('Error: ENOENT: no such file\nat x')).toBe('Error: ENOENT: no such file');
    expect(failureLine('exit code 2')).toBe('exit code 2');
    expect(failureLine('\n  \n')).toBe('(no output)');
  });

  it('cuts a long line at a word, never mid-word', () => {
    const line = `${'word '.repeat(40)}STOP what now`;
    const cut = failureLine(line, 60);
    expect(cut.length).toBeLessThanOrEqual(60);
    expect(cut).toMatch(/ word…$|^word( word)*…$/);
    expect(cutAtWord('a STOP what', 9)).toBe('a STOP…');
    expect(cutAtWord('unbreakable-long-token', 10)).toBe('unbreakab…');
  });
});

function iterations(bus: RunBus, perIteration: (string | null)[][]): void {
  perIteration.forEach((tools, i) => {
    const iteration = i + 1;
    bus.emitEvent({ type: 'iteration-start', iteration, maxIterations: 20, fresh: false, prompt: 'continue' });
    for (const error of tools) {
      bus.emitEvent({ type: 'tool', iteration, name: 'command_execution', summary: 'ls', phase: 'call' });
      bus.emitEvent({ type: 'tool', iteration, name: 'command_execution', summary: 'ls', phase: 'result', ...(error === null ? {} : { error }) });
    }
    bus.emitEvent({ type: 'iteration-end', iteration, exitCode: 0, durationMs: 1, decision: 'none' });
  });
}

function warnings(perIteration: (string | null)[][]): string[] {
  const bus = new RunBus();
  const seen: RunEvent[] = [];
  bus.on('event', (e) => seen.push(e));
  watchToolFailureStreak(bus);
  iterations(bus, perIteration);
  return seen.flatMap((e) => (e.type === 'warning' ? [e.message] : []));
}

const sandbox = (n: number) => `exit code 1\nbwrap: execvp codex-linux-sandbox: No such file or directory (call ${n})`;

describe('three iterations whose every tool call failed the same way', () => {
  it('get one warning that quotes the failure and names the likely cause', () => {
    const w = warnings([[sandbox(1), sandbox(2)], [sandbox(3)], [sandbox(4), sandbox(5)], [sandbox(6)], [sandbox(7)]]);
    expect(w).toEqual([
      'every tool call of the last 3 iterations failed the same way: "exit code 1: bwrap: execvp codex-linux-sandbox: No such file or directory (call 4)"; likely cause: the agent\'s sandbox cannot start here. More iterations will not fix that: fix it, then resume the run',
    ]);
  });

  it('not when a call worked, an iteration made no call, or the failures differ', () => {
    expect(warnings([[sandbox(1)], [sandbox(2), null], [sandbox(3)], [sandbox(4)]])).toEqual([]);
    expect(warnings([[sandbox(1)], [], [sandbox(3)], [sandbox(4)]])).toEqual([]);
    expect(warnings([[sandbox(1)], ['exit code 1\npermission denied'], [sandbox(3)], [sandbox(4)]])).toEqual([]);
  });
});
