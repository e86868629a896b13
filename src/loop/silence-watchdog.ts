// Off the rails (docs/loop.md#silence): no output for `timeoutMs` → fire. Any byte counts as activity.
// touch() runs for every chunk, so it only stores a time; one timer re-arms itself lazily.
import type { Clock } from './clock.js';

export interface SilenceWatchdogOptions {
  timeoutMs: number;
  clock: Clock;
  /** Once per silence, at a quarter of the timeout. */
  onWarn?: (silentMs: number) => void;
  onFire: (silentMs: number) => void;
}

export class SilenceWatchdog {
  private last: number;
  private timer: unknown;
  private warned = false;
  private done = false;

  constructor(private readonly o: SilenceWatchdogOptions) {
    this.last = o.clock.now();
    this.arm(this.warnAfter());
  }

  touch(): void {
    this.last = this.o.clock.now();
    this.warned = false;
  }

  stop(): void {
    this.done = true;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private warnAfter(): number {
    return Math.max(1, Math.floor(this.o.timeoutMs / 4));
  }

  private arm(ms: number): void {
    if (this.done) return;
    this.timer = this.o.clock.setTimeout(() => this.check(), ms);
  }

  private check(): void {
    if (this.done) return;
    const silent = this.o.clock.now() - this.last;
    if (silent >= this.o.timeoutMs) {
      this.done = true;
      this.o.onFire(silent);
      return;
    }
    if (!this.warned && silent >= this.warnAfter()) {
      this.warned = true;
      this.o.onWarn?.(silent);
    }
    const nextWarn = this.warned ? Infinity : this.warnAfter() - silent;
    this.arm(Math.max(1, Math.min(this.o.timeoutMs - silent, nextWarn)));
  }
}
