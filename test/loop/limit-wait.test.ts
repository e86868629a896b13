// Waiting out usage limits (docs/overnight.md): when to try again, and a sleep that a stop ends.
import { describe, expect, it } from 'vitest';
import { mergeLimit, planWait, RESET_MARGIN_MS, SharedLimits, sleepUntil, STOP_POLL_MS } from '../../src/loop/limit-wait.js';
import { humanSpan, waitLine } from '../../src/ui/wait-line.js';
import { FakeClock } from './fake-clock.js';

const NOW = Date.UTC(2026, 10, 25, 1, 0, 0);

describe('planWait', () => {
  it('waits for the reset time the agent gave, plus a margin', () => {
    const resetsAt = NOW + 2 * 3_600_000;
    expect(planWait({ kind: 'usage', message: 'limit', resetsAt }, NOW, 0)).toEqual({ until: resetsAt + RESET_MARGIN_MS, basis: 'reset' });
  });

  it('a reset time already past waits only the margin', () => {
    expect(planWait({ kind: 'usage', message: 'limit', resetsAt: NOW - 60_000 }, NOW, 0)).toEqual({ until: NOW + RESET_MARGIN_MS, basis: 'reset' });
  });

  it('obeys retry-after when there is no reset time', () => {
    expect(planWait({ kind: 'rate', message: '429', retryAfterMs: 90_000 }, NOW, 3)).toEqual({ until: NOW + 90_000, basis: 'retry-after' });
  });

  it('backs off, doubling with each limit in a row, up to half an hour', () => {
    const waits = [0, 1, 2, 3, 10, 40].map((streak) => planWait({ kind: 'overloaded', message: '529' }, NOW, streak).until - NOW);
    expect(waits).toEqual([15_000, 30_000, 60_000, 120_000, 1_800_000, 1_800_000]);
    expect(planWait({ kind: 'usage', message: 'x' }, NOW, 0)).toEqual({ until: NOW + 60_000, basis: 'backoff' });
  });
});

describe('sleepUntil', () => {
  it('resolves done when the clock reaches the time, not before', async () => {
    const clock = new FakeClock(NOW);
    let end: string | undefined;
    void sleepUntil(clock, NOW + 5 * 3_600_000, new AbortController().signal, () => false).then((e) => (end = e));
    clock.advance(5 * 3_600_000 - 1);
    await Promise.resolve();
    expect(end).toBeUndefined();
    clock.advance(1);
    await new Promise((r) => setImmediate(r));
    expect(end).toBe('done');
    expect(clock.pending).toBe(0);
  });

  it('ends at once on abort, and within one poll on a stop request', async () => {
    const clock = new FakeClock(NOW);
    const abort = new AbortController();
    const aborted = sleepUntil(clock, NOW + 3_600_000, abort.signal, () => false);
    abort.abort();
    await expect(aborted).resolves.toBe('aborted');
    expect(clock.pending).toBe(0);

    let stop = false;
    const stopped = sleepUntil(clock, NOW + 3_600_000, new AbortController().signal, () => stop);
    clock.advance(STOP_POLL_MS * 3);
    stop = true;
    clock.advance(STOP_POLL_MS);
    await expect(stopped).resolves.toBe('stop-requested');
  });
});

describe('SharedLimits', () => {
  it('makes a later plan with the same agent wait until the recorded time, then forgets it', () => {
    const shared = new SharedLimits();
    shared.record('claude|claude-json', NOW + 60_000, { kind: 'usage', message: 'limit' });
    shared.record('claude|claude-json', NOW + 30_000, { kind: 'usage', message: 'earlier' });
    expect(shared.active('claude|claude-json', NOW)).toMatchObject({ until: NOW + 60_000, limit: { message: 'limit' } });
    expect(shared.active('codex|codex-json', NOW)).toBeUndefined();
    expect(shared.active('claude|claude-json', NOW + 60_000)).toBeUndefined();
  });
});

describe('waitLine', () => {
  it('reads as a person says it', () => {
    const now = new Date(2026, 10, 25, 0, 47, 0);
    const until = new Date(2026, 10, 25, 3, 0, 0);
    expect(waitLine('usage', until, now)).toBe('waiting for the usage limit until 03:00 (2 h 13 m)');
    expect(humanSpan(250_000)).toBe('4 m 10 s');
    expect(humanSpan(12_000)).toBe('12 s');
  });
});

describe('mergeLimit: one refusal, several events', () => {
  const exact = { type: 'limit' as const, kind: 'usage' as const, message: 'claude: usage limit reached (five_hour)', resetsAt: 1_000_040_000 };
  const words = { type: 'limit' as const, kind: 'usage' as const, message: "claude reported an API error (HTTP 429): You've hit your session limit · resets 8:03pm (UTC)", resetsAt: 1_000_000_000, resetFromWords: true };

  it('an exact reset time is never replaced by one read from words, whichever comes last', () => {
    expect(mergeLimit(exact, words)).toEqual({ ...words, resetsAt: exact.resetsAt, resetFromWords: undefined });
    expect(mergeLimit(exact, words).resetFromWords).toBeUndefined();
    expect(mergeLimit(words, exact)).toEqual(exact);
  });

  it('a later time of the same kind wins; a wait given before is kept', () => {
    expect(mergeLimit(words, { ...words, resetsAt: 2 })).toMatchObject({ resetsAt: 2, resetFromWords: true });
    expect(mergeLimit({ ...exact, retryAfterMs: 20_000 }, { type: 'limit', kind: 'rate', message: 'x' })).toEqual({ type: 'limit', kind: 'rate', message: 'x', resetsAt: exact.resetsAt, retryAfterMs: 20_000 });
  });
});

describe('planWait after a wake-up', () => {
  it('the same past reset again right after waking backs off instead of trying every 5 seconds', () => {
    const stale = { kind: 'usage' as const, message: 'limit', resetsAt: NOW - 10_000 };
    expect(planWait(stale, NOW, 0)).toEqual({ until: NOW + RESET_MARGIN_MS, basis: 'reset' });
    expect(planWait(stale, NOW, 1)).toEqual({ until: NOW + 120_000, basis: 'backoff' });
    // A reset still ahead is waited for, however many limits came before.
    expect(planWait({ ...stale, resetsAt: NOW + 40_000 }, NOW, 3)).toEqual({ until: NOW + 40_000 + RESET_MARGIN_MS, basis: 'reset' });
  });
});
