// The first hour in a real repository (docs/first-hour.md), through the built CLI: run state never
// reaches an agent's commit, a plan runs once at a time, and --resume remembers how a run started.
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, RUN_FILES } from '../../src/contract.js';
import { ralph, startRalph, trackWorkspaces, waitFor, type Workspace } from './longrun-helpers/index.js';
import { commitAll, type Git } from '../helpers/git-repo.js';

const workspace = trackWorkspaces();

/** A git repository whose own .gitignore knows nothing of ralph. */
function bareRepo(ws: Workspace): Git {
  return commitAll(ws.cwd);
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
    // The first run's agent works until the second start has been refused.
    const cmd = ws.agent({ iterations: [[{ say: 'working' }, { waitFile: 'go' }, { summary: true }, { say: '###PLAN_COMPLETE###' }]] });
    const first = startRalph(['exec', ws.plan, '--', ...cmd], { cwd: ws.cwd });
    await waitFor(() => ws.calls().length === 1, 'the first run to start its agent');
    const second = await ralph(['exec', ws.plan, '--', ...cmd], { cwd: ws.cwd });
    writeFileSync(join(ws.cwd, 'go'), '');
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
    const run = startRalph(['exec', ws.plan, '--max-iterations', '4', '--max-runtime', '2h', '--stream-format', 'text', '--verify-timeout', '3m', '--max-log', '50MB', '--', ...cmd, 'extra-arg'], { cwd: ws.cwd });
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
    expect(state.settings).toMatchObject({ command: [...cmd, 'extra-arg'], streamFormat: 'text', maxIterations: 4, verifyTimeoutMs: 180_000, maxLogBytes: 50 * 1024 * 1024 });
  });
});

describe('ralph init', () => {
  it('writes a plan that validates, .ralph/.gitignore, and prints the next three commands; never overwrites', async () => {
    const ws = workspace();
    const ran = await ralph(['init'], { cwd: ws.cwd });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('wrote plans/first-plan.md');
    expect(ran.stdout).toContain('wrote .ralph/.gitignore');
    expect(ran.stdout).toContain('wrote ralph.config.yaml');
    const config = readFileSync(join(ws.cwd, 'ralph.config.yaml'), 'utf8');
    expect(config).toMatch(/^# ralph\.config\.yaml/);
    const shown = await ralph(['config', '--json'], { cwd: ws.cwd });
    expect(shown.code, shown.stderr).toBe(0);
    expect(ran.stdout).toMatch(/next:\n {2}1\. \$EDITOR plans\/first-plan\.md .*\n {2}2\. ralph validate plans\/first-plan\.md\n {2}3\. ralph exec plans\/first-plan\.md --agent claude /);
    const plan = readFileSync(join(ws.cwd, 'plans/first-plan.md'), 'utf8');
    expect(plan).toMatch(/^---\nid: first-plan\n/);
    for (const part of ['<tasks>', '<task', '## Progress', '## Observations', 'verify:']) expect(plan).toContain(part);
    const validated = await ralph(['validate', 'plans'], { cwd: ws.cwd });
    expect(validated.code, validated.stderr).toBe(0);
    expect(validated.stdout).toBe('ok  plans/first-plan.md  (first-plan, 1 task)\n');
    expect(validated.stderr).toBe('');

    const again = await ralph(['init'], { cwd: ws.cwd });
    expect(again.code).toBe(EXIT_CODES.usage);
    expect(readFileSync(join(ws.cwd, 'ralph.config.yaml'), 'utf8')).toBe(config);
    expect(again.stderr).toContain('plans/first-plan.md already exists');
    expect(readFileSync(join(ws.cwd, 'plans/first-plan.md'), 'utf8')).toBe(plan);
  });

  it("the template's placeholder verify fails until it is replaced: an untouched plan is never accepted", async () => {
    const ws = workspace();
    await ralph(['init', 'p.md'], { cwd: ws.cwd });
    const cmd = ws.agent({ plan: 'p', iterations: [[{ summary: true }, { say: '###PLAN_COMPLETE###' }]] } as Parameters<Workspace['agent']>[0]);
    const ran = await ralph(['exec', 'p.md', '--max-iterations', '1', '--', ...cmd], { cwd: ws.cwd });
    expect(ran.code).toBe(EXIT_CODES.exhausted);
    expect(ran.stderr).toMatch(/claim rejected: .*false # replace with the command/);
    expect(ran.stderr).toMatch(/ {2}\| \(no output\)/);
  });
});

describe('ralph runs', () => {
  it('lists runs newest first with plan, outcome, age, iterations and cost; --json for scripts', async () => {
    const ws = workspace();
    const empty = await ralph(['runs'], { cwd: ws.cwd });
    expect(empty.stdout).toMatch(/^no runs in .* yet/);
    const cmd = ws.agent({ iterations: [[{ summary: true }, { say: '###PLAN_COMPLETE###' }]] });
    expect((await ralph(['exec', ws.plan, '--', ...cmd], { cwd: ws.cwd })).code).toBe(0);
    expect((await ralph(['exec', ws.plan, '--max-iterations', '1', '--', process.execPath, '-e', '0'], { cwd: ws.cwd })).code).toBe(EXIT_CODES.exhausted);
    const listed = await ralph(['runs'], { cwd: ws.cwd });
    const lines = listed.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^RUN +PLAN +OUTCOME +AGE +ITERATIONS +COST$/);
    expect(lines[1]).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4} +longrun +exhausted +\S+ +1 +unknown$/);
    expect(lines[2]).toMatch(/^\d{8}-\d{6}-[0-9a-f]{4} +longrun +complete +\S+ +1 +unknown$/);
    const json = JSON.parse((await ralph(['runs', '--json', '--limit', '1'], { cwd: ws.cwd })).stdout);
    expect(json).toHaveLength(1);
    expect(json[0]).toMatchObject({ plan: 'longrun', outcome: 'exhausted', iterations: 1, costUsd: null });
    expect(typeof json[0].ageMs).toBe('number');
  });
});

describe('defaults that say what they are', () => {
  it('a run ends by itself after 8h unless told otherwise, has no cost limit, and status shows both', async () => {
    const ws = workspace();
    const cmd = ws.agent({ iterations: [[{ summary: true }, { say: '###PLAN_COMPLETE###' }]] });
    expect((await ralph(['exec', ws.plan, '--', ...cmd], { cwd: ws.cwd })).code).toBe(0);
    const status = JSON.parse((await ralph(['status', '--json'], { cwd: ws.cwd })).stdout);
    expect(status.limits).toMatchObject({ maxRuntimeMs: 8 * 3600_000, maxCostUsd: null, maxIterations: 20 });
    expect((await ralph(['status'], { cwd: ws.cwd })).stdout).toContain('limits     20 iterations, 3 bailouts in a row, runtime 8h, cost none, silence 10m');
    const help = (await ralph(['exec', '--help'], { cwd: ws.cwd })).stdout;
    expect(help.replace(/\s+/g, ' ')).toContain('or none (default: 8h)');
    expect(help.replace(/\s+/g, ' ')).toContain('--max-cost <usd> stop the run once it has cost this much (USD; default: none');
  });

  it('--max-runtime none lifts the runtime limit', async () => {
    const ws = workspace();
    const cmd = ws.agent({ iterations: [[{ summary: true }, { say: '###PLAN_COMPLETE###' }]] });
    expect((await ralph(['exec', ws.plan, '--max-runtime', 'none', '--', ...cmd], { cwd: ws.cwd })).code).toBe(0);
    const status = JSON.parse((await ralph(['status', '--json'], { cwd: ws.cwd })).stdout);
    expect(status.limits.maxRuntimeMs).toBeNull();
  });
});

describe('exec shows the plan\'s warnings as validate does', () => {
  it('an unknown front-matter key is a warning line naming the plan', async () => {
    const ws = workspace({ frontMatter: ['maxIterations: 3'] });
    const cmd = ws.agent({ iterations: [[{ summary: true }, { say: '###PLAN_COMPLETE###' }]] });
    const ran = await ralph(['exec', ws.plan, '--', ...cmd], { cwd: ws.cwd });
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain(`ralph: warning: ${ws.plan}: line 3: unknown front-matter key "maxIterations" is ignored (did you mean "max_iterations"?)`);
  });
});
