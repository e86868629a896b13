// Time as the loop sees it; tests inject their own so that nothing needs to sleep.
export interface Clock {
  now(): number;
  /**
   * Watchdog timers do not keep the process alive (the executor does); a wait between
   * iterations, when nothing else runs, must: `keepAlive`.
   */
  setTimeout(fn: () => void, ms: number, keepAlive?: boolean): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms, keepAlive) => {
    const t = setTimeout(fn, ms);
    if (!keepAlive) t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};
