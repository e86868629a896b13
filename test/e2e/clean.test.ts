// `ralph clean` through the built CLI (docs/files.md#what-grows-and-ralph-clean): finished runs,
// ended batches with their worktrees, merged or empty ralph/* branches go; a resumable run and a
// branch with commits HEAD lacks stay; --dry-run and --older-than remove nothing here.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph } from '../helpers/run-ralph.js';
import { BATCH_AGENT as AGENT } from '../helpers/batch-agent.js';
import { commitAll } from '../helpers/git-repo.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const tempDir = tempDirs();

function plan(dir: string, id: string, behaviour: string): void {
  writeFileSync(join(dir, 'plans', `${id}.md`), `---\nmax_iterations: 2\n---\n# ${id}\n\n<!-- agent: ${behaviour} -->\n\nDo it.\n\n<tasks>\n<task><name>only</name><action>do it</action><done>done</done></task>\n</tasks>\n`);
}

describe('ralph clean', () => {
  it('removes finished runs, the ended batch and its worktrees, and merged or empty branches; keeps what is resumable or unmerged', async () => {
    const dir = tempDir('ralph-clean-');
    mkdirSync(join(dir, 'plans'));
    // "empty" dies before doing anything: its branch gets no commit of its own.
    plan(dir, 'empty', 'crash');
    plan(dir, 'edits', 'edit notes.txt');
    const git = commitAll(dir);
    const batch = await runRalph(['batch', 'plans', '--isolate', 'worktree', '--', process.execPath, AGENT], { cwd: dir });
    expect(batch.code, batch.stderr).toBe(1);
    writeFileSync(join(dir, 'solo.md'), '# solo\n\n<!-- agent: complete -->\n\nDo it.\n\n<tasks>\n<task><name>only</name><action>do it</action><done>done</done></task>\n</tasks>\n');
    const single = await runRalph(['exec', 'solo.md', '--', process.execPath, AGENT], { cwd: dir });
    expect(single.code, single.stderr).toBe(0);
    // A run whose ralph died without a result: it can be resumed, so it stays.
    const deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
    const dead = join(dir, '.ralph', 'runs', '20200101-000000-dead');
    mkdirSync(dead, { recursive: true });
    writeFileSync(join(dead, 'state.json'), JSON.stringify({ version: 1, runId: '20200101-000000-dead', plan: 'empty', planPath: join(dir, 'plans', 'empty.md'), cwd: dir, pid: deadPid, outcome: null }));

    const [batchName] = readdirSync(join(dir, '.ralph', 'batches'));
    const branches = () => git('branch', '--list', 'ralph/*', '--format=%(refname:short)').trim().split('\n').filter(Boolean).sort();
    expect(branches()).toEqual([`ralph/${batchName}/edits`, `ralph/${batchName}/empty`]);
    const singleRun = readdirSync(join(dir, '.ralph', 'runs')).find((n) => n !== '20200101-000000-dead')!;

    const dry = await runRalph(['clean', '--dry-run'], { cwd: join(dir, 'plans') });
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would remove run ${singleRun} (complete, ended `);
    expect(dry.stdout).toContain(`would remove batch ${batchName} (done, ended `);
    expect(dry.stdout).toContain(`would remove branch ralph/${batchName}/empty (merged or empty)`);
    expect(dry.stdout).toContain(`kept branch ralph/${batchName}/edits (has commits HEAD does not have)`);
    expect(dry.stdout).toContain('kept run 20200101-000000-dead (dead: no result, it can be resumed)');
    expect(dry.stdout).toMatch(/\nwould remove 3, kept 2 \(dry run: nothing was removed\)\n$/);
    expect(existsSync(join(dir, '.ralph', 'batches', batchName!))).toBe(true);

    const young = await runRalph(['clean', '--older-than', '7d'], { cwd: dir });
    expect(young.stdout).toMatch(/\nremoved 0, kept 5\n$/);

    const cleaned = await runRalph(['clean'], { cwd: dir });
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toMatch(/\nremoved 3, kept 2\n$/);
    expect(readdirSync(join(dir, '.ralph', 'runs'))).toEqual(['20200101-000000-dead']);
    expect(readdirSync(join(dir, '.ralph', 'batches'))).toEqual([]);
    expect(git('worktree', 'list').trim().split('\n')).toHaveLength(1);
    expect(branches()).toEqual([`ralph/${batchName}/edits`]);
  });
});
