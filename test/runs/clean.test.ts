// `ralph clean`'s reading of what the agent can reach (docs/hostile.md "A corrupted .ralph"): a
// batch.json or a run's files that cannot be believed are kept and named, never a crash, never
// removed. Real files in a temporary project.
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RUN_FILES } from '../../src/contract.js';
import { clean } from '../../src/runs/clean.js';
import { batchesRoot } from '../../src/runs/paths.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const tempDir = tempDirs();

describe('clean', () => {
  it('keeps, as unreadable, a batch whose batch.json is corrupt or of the wrong shape and a run whose files are, and removes an ended batch beside them', async () => {
    const dir = tempDir('ralph-clean-unit-');
    writeFileSync(join(dir, 'ralph.config.yaml'), '');
    const batches = batchesRoot(dir);
    expect(batches).toBe(join(dir, RUN_FILES.root, RUN_FILES.batches));
    const batch = (name: string, text: string) => {
      mkdirSync(join(batches, name), { recursive: true });
      writeFileSync(join(batches, name, 'batch.json'), text);
    };
    batch('20261101-000000', '{"batchId": "20261101-000000", "status": "do');
    batch('20261102-000000', JSON.stringify({ batchId: 5, status: 'done' }));
    batch('20261103-000000', JSON.stringify({ batchId: '20261103-000000', status: 'done', updatedAt: '2026-11-03T00:00:00.000Z', repo: null }));
    mkdirSync(join(batches, '20261104-000000'));
    const run = join(dir, RUN_FILES.root, RUN_FILES.runs, '20261101-000000-abcd');
    mkdirSync(run, { recursive: true });
    writeFileSync(join(run, 'result.json'), '{"outcome": "complete"');

    const r = await clean({ cwd: dir, dryRun: false, now: Date.parse('2026-11-27T00:00:00.000Z') });
    expect(r.kept).toEqual([
      { kind: 'run', name: '20261101-000000-abcd', why: 'unreadable (result.json: not valid JSON): remove it by hand once it is not running' },
      { kind: 'batch', name: '20261101-000000', why: 'unreadable (batch.json: not valid JSON): remove it by hand once it is not running' },
      { kind: 'batch', name: '20261102-000000', why: 'unreadable (batch.json: batchId is a number, expected a string): remove it by hand once it is not running' },
      { kind: 'batch', name: '20261104-000000', why: 'unreadable (batch.json: missing): remove it by hand once it is not running' },
    ]);
    expect(r.removed).toEqual([{ kind: 'batch', name: '20261103-000000', why: 'done, ended 576h ago' }]);
    expect(readdirSync(batches).sort()).toEqual(['20261101-000000', '20261102-000000', '20261104-000000']);
    expect(readdirSync(join(dir, RUN_FILES.root, RUN_FILES.runs))).toEqual(['20261101-000000-abcd']);
  });
});
