// Off the rails (docs/loop.md#silence): no output for `timeoutMs` → fire. Any byte counts as activity.
// touch() runs for every chunk, so it only stores a time; one timer re-arms itself lazily.
//
// Silent retries are not silence: an agent whose API refuses may retry for minutes without
// printing (Qwen Code answers a 429 so for 8–10 minutes). While the agent's processes keep doing
// I/O (`ioBytes`, read at each check), the silence is quiet work, not a hang — up to
// `quietLimitMs` of silence in all; a process that does no I/O at all for `timeoutMs` is hung.
import type { Clock } from './clock.js';

export interface SilenceWatchdogOptions {
  timeoutMs: number;
  clock: Clock;
  /** Once per silence, at a quarter of the timeout. */
  onWarn?: (silentMs: number) => void;
  onFire: (silentMs: number) => void;
  /** Bytes the agent's processes have read and written so far; undefined when not known. */
  ioBytes?: () => number | undefined;
  /** Silence with I/O going on is tolerated this long in all (default: quietLimit(timeoutMs)). */
  quietLimitMs?: number;
  /** Once per silence, when the timeout passed but the agent's processes were still doing I/O. */
  onQuietWork?: (silentMs: number) => void;
}

/** How long silence with I/O going on is tolerated: three timeouts, and at least 30 minutes. */
export function quietLimit(timeoutMs: number): number {
  return Math.max(3 * timeoutMs, 30 * 60_000);
}

export class SilenceWatchdog {
  private last: number;
  /** When the agent's processes were last seen doing I/O during this silence. */
  private lastIo: number;
  private ioSeen: number | undefined;
  private timer: unknown;
  private warned = false;
  private quietNoted = false;
  private done = false;
  private readonly quietLimitMs: number;

  constructor(private readonly o: SilenceWatchdogOptions) {
    this.last = o.clock.now();
    this.lastIo = this.last;
    this.quietLimitMs = o.quietLimitMs ?? quietLimit(o.timeoutMs);
    this.arm(this.warnAfter());
  }

  touch(): void {
    this.last = this.o.clock.now();
    this.lastIo = this.last;
    this.warned = false;
    this.quietNoted = false;
  }

  stop(): void {
    this.done = true;
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private warnAfter(): number {
    return Math.max(1, Math.floor(this.o.timeoutMs / 4));
  }

  /** Reads the I/O counters; a change since the last reading is I/O seen now. */
  private sampleIo(now: number): void {
    const bytes = this.o.ioBytes?.();
    if (bytes === undefined) return;
    if (this.ioSeen !== undefined && bytes !== this.ioSeen && now > this.lastIo) this.lastIo = now;
    this.ioSeen = bytes;
  }

  private arm(ms: number): void {
    if (this.done) return;
    this.timer = this.o.clock.setTimeout(() => this.check(), ms);
  }

  private check(): void {
    if (this.done) return;
    const now = this.o.clock.now();
    this.sampleIo(now);
    const silent = now - this.last;
    const idle = now - Math.max(this.last, this.lastIo);
    if (idle >= this.o.timeoutMs || silent >= this.quietLimitMs) {
      this.done = true;
      this.o.onFire(silent);
      return;
    }
    if (!this.warned && silent >= this.warnAfter()) {
      this.warned = true;
      this.o.onWarn?.(silent);
    }
    if (!this.quietNoted && silent >= this.o.timeoutMs) {
      this.quietNoted = true;
      this.o.onQuietWork?.(silent);
    }
    const nextWarn = this.warned ? Infinity : this.warnAfter() - silent;
    // While silent, the I/O counters are read every quarter timeout, so a retry every few minutes is seen.
    const nextSample = this.o.ioBytes !== undefined && silent >= this.warnAfter() ? this.warnAfter() : Infinity;
    this.arm(Math.max(1, Math.min(this.o.timeoutMs - idle, this.quietLimitMs - silent, nextWarn, nextSample)));
  }
}
