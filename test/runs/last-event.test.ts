// `ralph status` judges a quiet run by the `at` of the last event in events.jsonl, read from the
// file's tail only (docs/hostile.md "A corrupted .ralph"): a long log, a torn line at the window's
// start, a line without `at`, a missing file or a FIFO in its place all give an answer at once.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastEventAt } from '../../src/runs/run-view.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-last-event-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const event = (at: string, pad = ''): string => `${JSON.stringify({ type: 'iteration-start', at, pad })}\n`;

describe('lastEventAt', () => {
  it("is the last line's `at`, passing over a last line without one and a trailing torn line", () => {
    const path = join(dir, 'events.jsonl');
    writeFileSync(path, event('2026-11-27T01:00:00.000Z') + event('2026-11-27T02:00:00.000Z') + '{"type":"x"}\n{"type":"iteration-st');
    expect(lastEventAt(path)).toBe('2026-11-27T02:00:00.000Z');
  });

  it('reads only the last 64 KiB of a long log: an event that starts before it is torn and passed over', () => {
    const path = join(dir, 'long.jsonl');
    const old = event('2026-11-27T00:00:00.000Z', 'x'.repeat(200 * 1024));
    const torn = event('2026-11-27T03:00:00.000Z', 'y'.repeat(70 * 1024));
    writeFileSync(path, old + torn);
    expect(lastEventAt(path)).toBeNull();
    writeFileSync(path, old + torn + event('2026-11-27T04:00:00.000Z'));
    expect(lastEventAt(path)).toBe('2026-11-27T04:00:00.000Z');
  });

  it('is null for a missing file, an empty one, and a FIFO (without waiting for a writer)', () => {
    expect(lastEventAt(join(dir, 'missing.jsonl'))).toBeNull();
    writeFileSync(join(dir, 'empty.jsonl'), '');
    expect(lastEventAt(join(dir, 'empty.jsonl'))).toBeNull();
    execFileSync('mkfifo', [join(dir, 'fifo.jsonl')]);
    expect(lastEventAt(join(dir, 'fifo.jsonl'))).toBeNull();
  });
});
