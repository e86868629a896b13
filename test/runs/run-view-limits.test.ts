// A state.json without `limits` (an older ralph's, or one an agent rewrote) passes the checked
// reader, which lets a nested object be absent: the views must do without it, not crash (exit 70).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPaths } from '../../src/runs/paths.js';
import { viewRun } from '../../src/runs/run-view.js';
import { emptyDigest } from '../../src/serve/run-digest.js';
import { summarize } from '../../src/serve/run-summary.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const tempDir = tempDirs();

describe('a run whose state.json has no limits', () => {
  it('is viewed (running: its pid is alive) and summarized for the page with the digest’s iteration bound', () => {
    const dir = tempDir('ralph-view-');
    writeFileSync(join(dir, 'state.json'), JSON.stringify({ version: 1, runId: 'r', plan: 'p', planPath: '/x/p.md', cwd: dir, pid: process.pid, outcome: null }));
    const v = viewRun(runPaths(dir));
    expect(v.health).toBe('running');
    const d = emptyDigest();
    expect(summarize('runs/r', null, v, d).maxIterations).toBe(d.maxIterations);
  });
});
