import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resumeCommand, settingsOf, withStoredSettings } from '../../src/runs/run-settings.js';
import { runPaths } from '../../src/runs/paths.js';
import { viewRun } from '../../src/runs/run-view.js';
import { spawnSync } from 'node:child_process';

const dir = mkdtempSync(join(tmpdir(), 'ralph-settings-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function runWithState(id: string, state: Record<string, unknown>): void {
  const run = join(dir, '.ralph', 'runs', id);
  mkdirSync(run, { recursive: true });
  writeFileSync(join(run, 'state.json'), JSON.stringify({ version: 1, runId: id, ...state }));
}

describe('stored run settings', () => {
  it('keeps the options given, with paths made absolute', () => {
    expect(settingsOf({ planPath: 'p.md', cwd: dir, command: ['claude', '-p'], streamFormat: 'claude-json', maxCostUsd: 5, summary: 'x.json' })).toEqual({
      command: ['claude', '-p'],
      streamFormat: 'claude-json',
      maxCostUsd: 5,
      summary: join(process.cwd(), 'x.json'),
    });
  });

  it('on resume, stored settings fill what is not given now; what is given wins', () => {
    runWithState('r1', { settings: { command: ['agent', 'a'], streamFormat: 'codex-json', maxIterations: 7, maxCostUsd: 3 } });
    expect(withStoredSettings({ planPath: 'p.md', cwd: dir, resume: 'r1', maxCostUsd: 9 })).toMatchObject({
      command: ['agent', 'a'],
      streamFormat: 'codex-json',
      maxIterations: 7,
      maxCostUsd: 9,
    });
    expect(withStoredSettings({ planPath: 'p.md', cwd: dir, resume: 'r1', command: ['other'] }).command).toEqual(['other']);
  });

  it('a run from before settings were stored resumes with what is given (backward compatible)', () => {
    runWithState('r0', { plan: 'p' });
    const given = { planPath: 'p.md', cwd: dir, resume: 'r0', command: ['agent'] };
    expect(withStoredSettings(given)).toEqual(given);
  });

  it('the resume command names the plan, and --cwd / --run-dir only when needed, quoted for a shell', () => {
    const cwd = join(dir, 'my repo');
    expect(resumeCommand({ planPath: join(cwd, 'plan.md'), runId: 'r1', cwd, runDir: join(cwd, '.ralph', 'runs', 'r1') }, cwd)).toBe('ralph exec plan.md --resume r1');
    expect(resumeCommand({ planPath: join(cwd, 'plan.md'), runId: 'r1', cwd, runDir: join(cwd, '.ralph', 'runs', 'r1') }, dir)).toBe(
      `ralph exec 'my repo/plan.md' --resume r1 --cwd 'my repo'`,
    );
    expect(resumeCommand({ planPath: join(cwd, 'plan.md'), runId: 'r1', cwd, runDir: join(cwd, 'logs', 'r1') }, cwd)).toBe('ralph exec plan.md --resume r1 --run-dir logs/r1');
  });

  it('ralph status of a run whose process died says the whole command that resumes it', () => {
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    runWithState('r9', { plan: 'p', planPath: join(dir, 'plan.md'), cwd: dir, pid: dead, outcome: null });
    const view = viewRun(runPaths(join(dir, '.ralph', 'runs', 'r9')));
    expect(view.health).toBe('dead');
    expect(view.why).toContain(`resume it with: ralph exec ${join(dir, 'plan.md')} --resume r9 --cwd ${dir}`);
  });
});
