import { describe, expect, it } from 'vitest';
import { SilenceWatchdog } from '../../src/loop/silence-watchdog.js';
import { FakeClock } from './fake-clock.js';

function setup(timeoutMs = 1_000) {
  const clock = new FakeClock();
  const fired: number[] = [];
  const warned: number[] = [];
  const dog = new SilenceWatchdog({ timeoutMs, clock, onFire: (ms) => fired.push(ms), onWarn: (ms) => warned.push(ms) });
  return { clock, dog, fired, warned };
}

describe('SilenceWatchdog', () => {
  it('fires once the output has been silent for the whole timeout, not a millisecond earlier', () => {
    const { clock, fired } = setup(1_000);
    clock.advance(999);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([1_000]);
  });

  it('any activity restarts the silence', () => {
    const { clock, dog, fired } = setup(1_000);
    clock.advance(600);
    dog.touch();
    clock.advance(600);
    expect(fired).toEqual([]);
    dog.touch();
    clock.advance(999);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([1_000]);
  });

  it('warns once per silence, at a quarter of the timeout', () => {
    const { clock, dog, warned, fired } = setup(1_000);
    clock.advance(249);
    expect(warned).toEqual([]);
    clock.advance(1);
    expect(warned).toEqual([250]);
    clock.advance(500);
    expect(warned).toEqual([250]);
    dog.touch();
    clock.advance(300);
    expect(warned).toEqual([250, 250]);
    expect(fired).toEqual([]);
  });

  it('fires only once, and then leaves no timer behind', () => {
    const { clock, fired } = setup(100);
    clock.advance(10_000);
    expect(fired).toEqual([100]);
    expect(clock.pending).toBe(0);
  });

  it('stop() cancels it: it never fires and leaves no timer behind', () => {
    const { clock, dog, fired } = setup(1_000);
    clock.advance(500);
    dog.stop();
    expect(clock.pending).toBe(0);
    clock.advance(10_000);
    expect(fired).toEqual([]);
  });

  it('touch() is cheap: a flood of output never piles up timers', () => {
    const { clock, dog, fired } = setup(1_000);
    for (let i = 0; i < 10_000; i++) {
      dog.touch();
      if (i % 100 === 0) clock.advance(10);
    }
    expect(clock.pending).toBeLessThanOrEqual(1);
    expect(fired).toEqual([]);
  });

  it('a timeout too short to warn before still fires on time', () => {
    const { clock, fired } = setup(2);
    clock.advance(2);
    expect(fired).toEqual([2]);
  });
});

describe('SilenceWatchdog: silent retries are not silence', () => {
  function quiet(io: () => number | undefined, timeoutMs = 1_000, quietLimitMs = 10_000) {
    const clock = new FakeClock();
    const fired: number[] = [];
    const noted: number[] = [];
    new SilenceWatchdog({ timeoutMs, clock, ioBytes: io, quietLimitMs, onFire: (ms) => fired.push(ms), onQuietWork: (ms) => noted.push(ms) });
    return { clock, fired, noted };
  }

  it("no output but the agent's processes keep doing I/O: no fire until the quiet limit", () => {
    let bytes = 0;
    const { clock, fired, noted } = quiet(() => (bytes += 100));
    clock.advance(9_999);
    expect(fired).toEqual([]);
    expect(noted).toEqual([1_000]);
    clock.advance(1);
    expect(fired).toEqual([10_000]);
  });

  it('a hang — no output and no I/O — fires at the timeout, as before', () => {
    const { clock, fired } = quiet(() => 4_096);
    clock.advance(999);
    expect(fired).toEqual([]);
    clock.advance(1);
    expect(fired).toEqual([1_000]);
  });

  it('I/O that stops (the retries gave up, the agent hangs) fires one timeout after the last I/O seen', () => {
    let bytes = 0;
    let retrying = true;
    const { clock, fired } = quiet(() => (retrying ? (bytes += 100) : bytes));
    clock.advance(3_000);
    retrying = false;
    clock.advance(999);
    expect(fired).toEqual([]);
    clock.advance(1_000);
    expect(fired).toHaveLength(1);
    expect(fired[0]).toBeLessThanOrEqual(4_250);
  });

  it('unknown I/O (no /proc) changes nothing', () => {
    const { clock, fired } = quiet(() => undefined);
    clock.advance(1_000);
    expect(fired).toEqual([1_000]);
  });
});
