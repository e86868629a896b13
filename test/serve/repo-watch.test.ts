// Finding runs and batches as they appear, from folder changes alone: .ralph/ made after the
// server started, a batch folder whose batch.json comes later, a run folder added to it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RepoWatch, type BatchSummary } from '../../src/serve/repo-watch.js';
import type { RunSummary } from '../../src/serve/run-summary.js';
import { ScriptedRun } from './helpers.js';
import { PATIENCE_MS } from '../helpers/patience.js';

let dir = '';
let watch: RepoWatch | undefined;
afterEach(() => {
  watch?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('RepoWatch', () => {
  it('finds what appears after it started, without being asked: a run, a batch.json, a batch run', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-watch-'));
    // A batch folder whose batch.json is not written yet when the watch starts.
    const bdir = join(dir, '.ralph', 'batches', 'b1');
    mkdirSync(bdir, { recursive: true });
    watch = new RepoWatch({ root: join(dir, '.ralph') });
    const runs: RunSummary[] = [];
    const batches: BatchSummary[] = [];
    watch.on('run', (r) => runs.push(r));
    watch.on('batch', (b) => batches.push(b));

    const run = new ScriptedRun(dir, '20261126-020000-late');
    run.start();
    run.nextIteration();
    await vi.waitFor(() => expect(runs.at(-1)?.state).toBe('running'), { timeout: PATIENCE_MS });

    expect(watch.listBatches()).toEqual([]);
    writeFileSync(join(bdir, 'batch.json'), JSON.stringify({ status: 'running', createdAt: '2026-11-26T02:00:00Z', plans: [{ id: 'p', path: 'p.md' }], results: [], complete: null }));
    await vi.waitFor(() => expect(batches.at(-1)?.plans).toEqual([{ id: 'p', key: null, attempts: 0, outcome: null, verdict: null }]), { timeout: PATIENCE_MS });
    mkdirSync(join(bdir, 'runs', 'p'), { recursive: true });
    await vi.waitFor(() => expect(batches.at(-1)?.plans[0]!.key).toBe('batches/b1/runs/p'), { timeout: PATIENCE_MS });

    run.finish('complete', 'ok');
    await vi.waitFor(() => expect(runs.at(-1)?.outcome).toBe('complete'), { timeout: PATIENCE_MS });
  });
});
