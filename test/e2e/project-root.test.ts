// The project's root (docs/files.md#where-ralph-keeps-its-files) and one id everywhere
// (docs/files.md#run-ids), through the built CLI as a newcomer meets them: a run started from a
// subfolder lives in the root's one .ralph/, and every id `ralph runs` prints works with
// status, stop and report --run, from any folder of the project.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph } from '../helpers/run-ralph.js';
import { BATCH_AGENT as AGENT } from '../helpers/batch-agent.js';
import { commitAll } from '../helpers/git-repo.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const tempDir = tempDirs();

function repo(): string {
  const dir = tempDir('ralph-root-');
  mkdirSync(join(dir, 'src', 'deep'), { recursive: true });
  mkdirSync(join(dir, 'plans'));
  for (const id of ['p', 'q']) {
    writeFileSync(join(dir, 'plans', `${id}.md`), `---\nmax_iterations: 2\n---\n# ${id}\n\n<!-- agent: complete -->\n\nDo it.\n\n<tasks>\n<task><name>only</name><action>do it</action><done>done</done></task>\n</tasks>\n`);
  }
  writeFileSync(join(dir, 'src', 'deep', 'keep.txt'), 'x\n');
  commitAll(dir);
  return dir;
}

describe('the project root', () => {
  it('from a subfolder: one .ralph/ at the root, the agent runs at the root, and runs/status/report find the run from any folder', async () => {
    const dir = repo();
    const src = join(dir, 'src');
    const ran = await runRalph(['exec', '../plans/p.md', '--', process.execPath, AGENT], { cwd: src });
    expect(ran.code, ran.stderr).toBe(0);
    expect(existsSync(join(dir, '.ralph', 'runs'))).toBe(true);
    expect(existsSync(join(src, '.ralph'))).toBe(false);
    // The agent's summary lands beside the plan; its working directory was the root.
    const result = JSON.parse(execFileSync('sh', ['-c', 'cat .ralph/runs/*/result.json'], { cwd: dir, encoding: 'utf8' }));
    expect(JSON.parse(readFileSync(join(result.runDir, 'state.json'), 'utf8')).cwd).toBe(dir);

    const deep = join(src, 'deep');
    const runs = await runRalph(['runs', '--json'], { cwd: deep });
    expect(runs.code, runs.stderr).toBe(0);
    const listed = JSON.parse(runs.stdout) as { run: string }[];
    expect(listed.map((r) => r.run)).toEqual([result.run]);
    const status = await runRalph(['status', result.run], { cwd: deep });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain(`run        ${result.run}`);
    const report = await runRalph(['report', '--run', result.run, '--format', 'json'], { cwd: deep });
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout).runs).toHaveLength(1);
  });

  it('after a batch, every id `ralph runs` prints works with status, stop and report --run', async () => {
    const dir = repo();
    const batch = await runRalph(['batch', 'plans', '--isolate', 'none', '--', process.execPath, AGENT], { cwd: dir });
    expect(batch.code, batch.stderr).toBe(0);
    const single = await runRalph(['exec', '../plans/q.md', '--', process.execPath, AGENT], { cwd: join(dir, 'src') });
    expect(single.code, single.stderr).toBe(0);
    const runs = await runRalph(['runs', '--json'], { cwd: join(dir, 'src') });
    const ids = (JSON.parse(runs.stdout) as { run: string }[]).map((r) => r.run);
    expect(ids).toHaveLength(3);
    expect(ids.filter((id) => /^[^/]+\/p$/.test(id))).toHaveLength(1);
    for (const id of ids) {
      const status = await runRalph(['status', id, '--json'], { cwd: join(dir, 'src') });
      expect(status.code, `${id}: ${status.stderr}`).toBe(0);
      expect(JSON.parse(status.stdout).outcome).toBe('complete');
      const stop = await runRalph(['stop', id], { cwd: dir });
      expect(stop.code, `${id}: ${stop.stderr}`).toBe(0);
      expect(stop.stdout).toContain('is not running (complete)');
      const report = await runRalph(['report', '--run', id, '--format', 'json'], { cwd: dir });
      expect(report.code, `${id}: ${report.stderr}`).toBe(0);
      expect(JSON.parse(report.stdout).runs).toHaveLength(1);
    }
    // A batch's plan run by its own name, while one batch alone has it.
    const byName = await runRalph(['status', 'p', '--json'], { cwd: dir });
    expect(byName.code, byName.stderr).toBe(0);
    const missing = await runRalph(['status', 'nope'], { cwd: dir });
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain('ralph runs');
  });
});
