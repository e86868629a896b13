// End to end through the built CLI (`node bin/ralph.js batch`) with the scripted agent in
// test/fixtures/batch/agent.mjs. Needs dist/ (npm run build).
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, type Ran } from '../helpers/run-ralph.js';
import { BATCH_AGENT as AGENT, writeBatchPlan as plan } from '../helpers/batch-agent.js';
import { FLUX_DRIVE_SENTINEL } from '../../src/contract.js';
import { tempDir } from './helpers.js';
import { isRunning as alive } from '../helpers/processes.js';
import { PATIENCE_MS } from '../helpers/patience.js';

function ralph(args: string[], cwd: string, onStart?: (child: ChildProcess) => void): Promise<Ran> {
  return runRalph(args, { cwd, ...(onStart ? { onStart } : {}) });
}


function agentPids(out: string): number[] {
  const runs = join(out, 'runs');
  if (!existsSync(runs)) return [];
  return readdirSync(runs)
    .map((d) => join(runs, d, 'agent.pid'))
    .filter((p) => existsSync(p))
    .map((p) => Number(readFileSync(p, 'utf8')));
}

async function until(check: () => boolean, ms = PATIENCE_MS): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function results(out: string): string[] {
  return readdirSync(out).filter((f) => f.endsWith('.md') && f !== 'index.md' && f !== 'report.md').sort();
}

function expectFluxDrive(out: string): void {
  expect(readdirSync(out).filter((f) => f.endsWith('.partial'))).toEqual([]);
  for (const f of results(out)) expect(readFileSync(join(out, f), 'utf8').trimEnd().split('\n').at(-1)).toBe(FLUX_DRIVE_SENTINEL);
}

describe('ralph batch (built CLI, scripted agents)', () => {
  it('runs mixed outcomes: complete, retry then success, retry then stub, blocked, agent crash', async () => {
    const dir = tempDir();
    const plans = join(dir, 'plans');
    plan(plans, 'a', 'complete');
    plan(plans, 'b', 'fail-once');
    plan(plans, 'c', 'fail');
    plan(plans, 'd', 'block');
    plan(plans, 'e', 'crash');
    const out = join(dir, 'out');
    const r = await ralph(['batch', 'plans', '--out', 'out', '--concurrency', '3', '--isolate', 'none', '--', process.execPath, AGENT], dir);
    // Progress is for people (stderr); nothing of it on stdout, and no error line.
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toMatch(/^ralph: /m);
    expect(r.code).toBe(1);
    expect(results(out)).toEqual(['a.md', 'b.md', 'c.md', 'd.md', 'e.md']);
    expectFluxDrive(out);
    const read = (id: string) => readFileSync(join(out, `${id}.md`), 'utf8');
    expect(read('a')).toContain('- Outcome: complete');
    expect(read('a')).toMatch(/### Findings Index\n- P1 \| BG001 \| "bug" \| Found in a \/ attempt 1\nVerdict: needs-changes\n/);
    expect(read('a')).toContain('```json\n{\n  "plan": "a"');
    expect(read('b')).toContain('- Outcome: complete');
    expect(read('b')).toContain('- Attempts: 2');
    expect(read('c')).toMatch(/Verdict: error\nError: failed: /);
    expect(read('d')).toContain('- Outcome: blocked');
    expect(read('e')).toMatch(/Verdict: error\nError: failed: /);
    expect(readdirSync(join(out, 'attempts')).sort()).toEqual(['b.attempt-1.md', 'c.attempt-1.md', 'c.attempt-2.md', 'e.attempt-1.md', 'e.attempt-2.md']);
    expect(existsSync(join(out, 'runs', 'b.2', 'result.json'))).toBe(true);
    const index = readFileSync(join(out, 'index.md'), 'utf8');
    expect(index.split('\n')[0]).toBe('[2/5 plans complete]');
    expect(index).toMatch(/\| d \| blocked \| 1 \| \d+ \| [^|]+ \| needs-changes \|/);
    expect(existsSync(join(out, 'report.md'))).toBe(true);
    // Each plan's receipts: in its result file, copied into the index (not into batch.json), and in the report.
    expect(read('a')).toMatch(/### Receipts\n\n\| iteration \| time \|[^\n]*\n[^\n]*\n\| 1 \| /);
    expect(index).toMatch(/\n## Receipts\n[^]*\n### a\n\n\| iteration \| time \|/);
    expect(readFileSync(join(out, 'report.md'), 'utf8')).toContain('\n### Receipts\n');
    expect(JSON.parse(readFileSync(join(out, 'batch.json'), 'utf8')).results.filter((row: object) => 'receipts' in row)).toEqual([]);
    expect(r.stderr).toContain('[2/5 plans complete]');
    expect(r.stderr).not.toMatch(/\u001b/);
    expect(r.stdout).toBe('');
  });

  it('stops a plan at --plan-timeout, retries it, then leaves a stub; no agent left running', async () => {
    const dir = tempDir();
    plan(join(dir, 'plans'), 'slow', 'hang');
    const r = await ralph(['batch', 'plans/slow.md', '--out', 'out', '--plan-timeout', '2s', '--', process.execPath, AGENT], dir);
    expect(r.code).toBe(1);
    const out = join(dir, 'out');
    expect(readFileSync(join(out, 'slow.md'), 'utf8')).toMatch(/Verdict: error\nError: timed_out: plan timeout of 2s reached/);
    expect(readFileSync(join(out, 'attempts', 'slow.attempt-1.md'), 'utf8')).toContain('- Outcome: timed_out');
    // On a loaded machine an agent may be stopped before it wrote its pid; every one that did is gone.
    const pids = agentPids(out);
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it('isolates concurrent plans in git worktrees: edits to the same file do not collide', async () => {
    const dir = tempDir();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 't@example.com');
    git('config', 'user.name', 't');
    writeFileSync(join(dir, 'shared.txt'), 'start\n');
    writeFileSync(join(dir, '.gitignore'), '.ralph/\n');
    plan(join(dir, 'plans'), 'one', 'edit shared.txt');
    plan(join(dir, 'plans'), 'two', 'edit shared.txt');
    git('add', '.');
    git('commit', '-q', '-m', 'init');
    const r = await ralph(['batch', 'plans', '--concurrency', '2', '--', process.execPath, AGENT], dir);
    expect(r.code).toBe(0);
    const [batchId] = readdirSync(join(dir, '.ralph', 'batches'));
    for (const id of ['one', 'two']) {
      expect(git('show', `ralph/${batchId}/${id}:shared.txt`)).toBe(`start\n${id}`);
    }
    expect(readFileSync(join(dir, 'shared.txt'), 'utf8')).toBe('start\n');
    const index = readFileSync(join(dir, '.ralph', 'batches', batchId!, 'index.md'), 'utf8');
    expect(index).toMatch(new RegExp(`ralph/${batchId}/one @ [0-9a-f]{12} / worktrees/one`));
  });

  it('on SIGINT ends every running plan interrupted (130), and --resume finishes only those', async () => {
    const dir = tempDir();
    const plans = join(dir, 'plans');
    plan(plans, 'quick', 'complete');
    plan(plans, 'h1', 'hang');
    plan(plans, 'h2', 'hang');
    const out = join(dir, 'out');
    const first = await ralph(['batch', 'plans', '--out', 'out', '--concurrency', '3', '--isolate', 'none', '--', process.execPath, AGENT], dir, (child) => {
      void until(() => agentPids(out).length === 2 && existsSync(join(out, 'quick.md'))).then(
        () => child.kill('SIGINT'),
        () => child.kill('SIGKILL'),
      );
    });
    expect(first.code).toBe(130);
    expectFluxDrive(out);
    expect(readFileSync(join(out, 'h1.md'), 'utf8')).toContain('- Outcome: interrupted');
    for (const pid of agentPids(out)) expect(alive(pid)).toBe(false);
    expect(readFileSync(join(out, 'index.md'), 'utf8').split('\n')[0]).toBe('[1/3 plans complete]');

    plan(plans, 'h1', 'complete');
    plan(plans, 'h2', 'complete');
    const second = await ralph(['batch', '--resume', 'out'], dir);
    expect(second.code).toBe(0);
    expect(readFileSync(join(out, 'index.md'), 'utf8').split('\n')[0]).toBe('[3/3 plans complete]');
    expect(readdirSync(join(out, 'runs')).sort()).toEqual(['h1', 'h1.2', 'h2', 'h2.2', 'quick']);
    expect(readdirSync(join(out, 'attempts')).sort()).toEqual(['h1.interrupted.md', 'h2.interrupted.md']);
  });

  it('--resume after ralph itself was killed: re-runs the plan whose partial was cut short', async () => {
    const dir = tempDir();
    const plans = join(dir, 'plans');
    plan(plans, 'quick', 'complete');
    plan(plans, 'slow', 'hang');
    const out = join(dir, 'out');
    const first = await ralph(['batch', 'plans', '--out', 'out', '--concurrency', '2', '--isolate', 'none', '--', process.execPath, AGENT], dir, (child) => {
      void until(() => agentPids(out).length === 1 && existsSync(join(out, 'quick.md'))).then(
        () => child.kill('SIGKILL'),
        () => child.kill('SIGKILL'),
      );
    });
    expect(first.code).toBeNull(); // killed: no chance to clean up
    // The orphaned agent is ours to stop (ralph could not).
    for (const pid of agentPids(out)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    expect(existsSync(join(out, 'slow.md.partial'))).toBe(true);
    expect(existsSync(join(out, 'index.md'))).toBe(false);

    plan(plans, 'slow', 'complete');
    const second = await ralph(['batch', '--resume', 'out'], dir);
    expect(second.code).toBe(0);
    expectFluxDrive(out);
    expect(readdirSync(join(out, 'attempts'))).toEqual(['slow.crashed.md.partial']);
    expect(readdirSync(join(out, 'runs')).sort()).toEqual(['quick', 'slow', 'slow.2']);
    expect(readFileSync(join(out, 'index.md'), 'utf8').split('\n')[0]).toBe('[2/2 plans complete]');
  });

  it('--json prints only NDJSON events tagged with plan', async () => {
    const dir = tempDir();
    plan(join(dir, 'plans'), 'a', 'complete');
    const r = await ralph(['batch', 'plans', '--out', 'out', '--json', '--', process.execPath, AGENT], dir);
    expect(r.code).toBe(0);
    const records = r.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { type: string; plan?: string });
    expect(records[0]!.type).toBe('batch-start');
    expect(records.at(-1)!.type).toBe('batch-end');
    expect(records.filter((x) => x.type === 'iteration-start').every((x) => x.plan === 'a')).toBe(true);
  });

  it('refuses concurrency without git unless --isolate none (64)', async () => {
    const dir = tempDir();
    plan(join(dir, 'plans'), 'a', 'complete');
    const r = await ralph(['batch', 'plans', '--concurrency', '2', '--', process.execPath, AGENT], dir);
    expect(r.code).toBe(64);
    expect(r.stderr).toMatch(/needs a git repository/);
    expect(r.stderr).toMatch(/--isolate none/);
    expect(existsSync(join(dir, '.ralph'))).toBe(false);
  });

  it('refuses a bad --concurrency or --plan-timeout the way exec refuses its flags (64, one line and a hint)', async () => {
    const dir = tempDir();
    plan(join(dir, 'plans'), 'a', 'complete');
    for (const [flag, value] of [['--concurrency', '0'], ['--plan-timeout', 'soon']] as const) {
      const r = await ralph(['batch', 'plans', flag, value, '--isolate', 'none', '--', process.execPath, AGENT], dir);
      expect(r.code).toBe(64);
      expect(r.stderr).toContain(`${flag} must be`);
      expect(r.stderr).toContain("(see 'ralph batch --help')");
      expect(existsSync(join(dir, '.ralph'))).toBe(false);
    }
  });
});
