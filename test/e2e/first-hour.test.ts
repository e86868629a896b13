// The first hour in a real repository (docs/first-hour.md), through the built CLI: run state never
// reaches an agent's commit, a plan runs once at a time, and --resume remembers how a run started.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, RUN_FILES } from '../../src/contract.js';
import { ralph, startRalph, trackWorkspaces, waitFor, type Workspace } from './longrun-helpers/index.js';

const workspace = trackWorkspaces();

/** A git repository whose own .gitignore knows nothing of ralph. */
function bareRepo(ws: Workspace): (...args: string[]) => string {
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=test', '-c', 'user.email=test@example.invalid', ...args], { cwd: ws.cwd, encoding: 'utf8' });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-qm', 'start');
  return git;
}

describe('git hygiene', () => {
  it("an agent's `git add -A && git commit` during a run commits no file of .ralph/", async () => {
    const ws = workspace();
    const git = bareRepo(ws);
    const cmd = ws.agent({ iterations: [[{ write: 'work.txt', content: 'done\n' }, { commit: 'agent work' }, { summary: true }, { say: '###PLAN_COMPLETE###' }]] });
    const ran = await ralph(['exec', ws.plan, '--', ...cmd], { cwd: ws.cwd });
    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    const committed = git('show', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean);
    expect(committed).toContain('work.txt');
    expect(committed.filter((f) => f.startsWith('.ralph'))).toEqual([]);
    expect(readFileSync(join(ws.cwd, RUN_FILES.root, '.gitignore'), 'utf8')).toMatch(/^\*$/m);
    expect(git('status', '--porcelain', '--ignored=no')).not.toMatch(/\.ralph/);
  });

  it('a --run-dir outside .ralph/ gets its own .gitignore that ignores everything', async () => {
    const ws = workspace();
    const git = bareRepo(ws);
    const cmd = ws.agent({ iterations: [[{ summary: true }, { say: '###PLAN_COMPLETE###' }]] });
    const ran = await ralph(['exec', ws.plan, '--run-dir', 'logs/run-1', '--', ...cmd], { cwd: ws.cwd });
    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    expect(existsSync(join(ws.cwd, 'logs/run-1/result.json'))).toBe(true);
    git('add', '-A');
    expect(git('status', '--porcelain')).not.toMatch(/logs\//);
  });
});

describe('one run per plan at a time', () => {
  it('a second `ralph exec` of a running plan exits 64 naming the run that holds it; the first is untouched', async () => {
    const ws = workspace();
    const cmd = ws.agent({ iterations: [[{ say: 'working' }, { sleep: 2_500 }, { summary: true }, { say: '###PLAN_COMPLETE###' }]] });
    const first = startRalph(['exec', ws.plan, '--', ...cmd], { cwd: ws.cwd });
    await new Promise((r) => setTimeout(r, 300));
    const second = await ralph(['exec', ws.plan, '--', ...cmd], { cwd: ws.cwd });
    const done = await first.done;
    expect(second.code, second.stderr).toBe(EXIT_CODES.usage);
    expect(done.code, done.stderr).toBe(EXIT_CODES.complete);
    const runId = ws.result().run;
    expect(second.stderr).toContain(`plan longrun is already running in ${ws.cwd}: run ${runId}`);
    expect(second.stderr).toContain(`ralph status ${runId}`);
    // The refused start made no run directory and the agent ran once.
    expect(ws.runDirs()).toHaveLength(1);
    expect(ws.calls()).toHaveLength(1);
    // The lock went with the run: the plan can run again.
    expect(readdirSync(join(ws.cwd, RUN_FILES.root, 'locks')).filter((f) => f.endsWith('.lock'))).toEqual([]);
  });
});

describe('resume remembers', () => {
  it('--resume latest without `--` continues a run started with -- <command>, its stream format and limits', async () => {
    const ws = workspace();
    const cmd = ws.agent({ iterations: [[{ say: 'still going' }, { hang: true }], [{ summary: true }, { say: '###PLAN_COMPLETE###' }]] });
    const run = startRalph(['exec', ws.plan, '--max-iterations', '4', '--max-runtime', '2h', '--', ...cmd, 'extra-arg'], { cwd: ws.cwd });
    await waitFor(() => ws.calls().length === 1 && existsSync(join(ws.cwd, '.ralph')), 'the agent to start');
    await new Promise((r) => setTimeout(r, 200));
    run.child.kill('SIGINT');
    const first = await run.done;
    expect(first.code, first.stderr).toBe(EXIT_CODES.interrupted);
    // Every message that suggests resuming gives the whole command.
    expect(ws.result().reason).toContain(`resume with: ralph exec plan.md --resume ${ws.result().run}`);

    const resumed = await ralph(['exec', 'plan.md', '--resume', 'latest'], { cwd: ws.cwd });
    expect(resumed.code, resumed.stderr).toBe(EXIT_CODES.complete);
    const calls = ws.calls();
    expect(calls).toHaveLength(2);
    expect(calls[1]!.argv).toEqual(['extra-arg']);
    const state = JSON.parse(readFileSync(join(ws.runDir(), 'state.json'), 'utf8'));
    expect(state.limits).toMatchObject({ maxIterations: 4, maxRuntimeMs: 2 * 3600_000 });
    expect(state.settings.command).toEqual([...cmd, 'extra-arg']);
  });
});
