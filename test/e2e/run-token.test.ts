// One run never stops another run's agent (docs/hostile.md "Processes of a run"): leftover
// processes are found by the run's random RALPH_RUN_TOKEN, not by its run id, which two runs
// share when their --run-dir folders have the same name.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assertBuilt, makeTempDir, planText, RALPH_BIN, removeTempDirs, SCRIPTED_AGENT } from './helpers/exec-harness.js';
import { PATIENCE_MS } from '../helpers/patience.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

function run(dir: string, steps: unknown[]): Promise<{ code: number | null; stderr: string }> {
  const work = join(dir, 'work');
  mkdirSync(work, { recursive: true });
  writeFileSync(join(work, 'plan.md'), planText());
  writeFileSync(join(dir, 'scenario.json'), JSON.stringify({ iterations: [steps] }));
  return new Promise((done) => {
    const child = execFile(
      process.execPath,
      [RALPH_BIN, 'exec', 'plan.md', '--quiet', '--run-dir', join(dir, 'runs', 'nightly'), '--', process.execPath, SCRIPTED_AGENT, join(dir, 'scenario.json')],
      { cwd: work, timeout: PATIENCE_MS },
      (_error, _stdout, stderr) => done({ code: child.exitCode, stderr }),
    );
  });
}

it('two runs whose run directories share a name (the same run id) leave each other\'s agents alone', async () => {
  // The quick run ends while the slow one's agent runs, whatever the machine's load: the quick agent
  // waits until the slow one has started, and the slow one until the quick run has ended.
  const slowDir = makeTempDir();
  const started = join(slowDir, 'work', 'started');
  const go = join(slowDir, 'work', 'go');
  const quick = run(makeTempDir(), [{ waitFile: started }, { summary: true }, { say: '###PLAN_COMPLETE###' }]);
  const slow = run(slowDir, [{ write: started }, { waitFile: go }, { summary: true }, { say: '###PLAN_COMPLETE###' }]);
  const a = await quick;
  writeFileSync(go, '');
  const b = await slow;
  expect(a.code, a.stderr).toBe(0);
  expect(b.code, b.stderr).toBe(0);
  const result = JSON.parse(readFileSync(join(slowDir, 'runs', 'nightly', 'result.json'), 'utf8'));
  expect(result).toMatchObject({ run: 'nightly', outcome: 'complete', iterations: 1 });
});
