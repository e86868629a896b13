import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkTasks, chooseTaskCheckMode, QUICK_TASK_CHECKS_MS, tasksVerdict, tasksVerified, type TaskState } from '../../src/loop/task-checks.js';
import { runBaseline } from '../../src/loop/baseline-checks.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-tasks-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const task = (name: string, verify: string): TaskState => ({ name, verify, status: 'pending', firstPassedIteration: null });

describe('task checks', () => {
  it('records each task as passing or failing with its output, the iteration it first passed, and regressions', async () => {
    const tasks = [task('A', 'test -f a'), task('B', 'test -f b || { echo no b here; exit 2; }')];
    writeFileSync(join(dir, 'a'), '');
    let round = await checkTasks(tasks, 1, { cwd: dir });
    expect(round).toMatchObject({ newlyPassing: ['A'], regressions: [] });
    expect(tasks[0]).toMatchObject({ status: 'passing', firstPassedIteration: 1 });
    expect(tasks[1]).toMatchObject({ status: 'failing', reason: '`test -f b || { echo no b here; exit 2; }` exited 2', tail: 'no b here', firstPassedIteration: null });
    expect(tasksVerified(tasks)).toBe('tasks 1/2 verified');
    expect(tasksVerdict(tasks, round)).toMatchObject({ check: 'tasks', ok: false, reason: expect.stringContaining('task "B" is not verified (tasks 1/2 verified)') });

    rmSync(join(dir, 'a'));
    writeFileSync(join(dir, 'b'), '');
    round = await checkTasks(tasks, 2, { cwd: dir });
    expect(round).toMatchObject({ newlyPassing: ['B'], regressions: ['A'] });
    expect(tasks[0]).toMatchObject({ status: 'failing', firstPassedIteration: 1, regressed: true });

    writeFileSync(join(dir, 'a'), '');
    round = await checkTasks(tasks, 3, { cwd: dir });
    expect(round.newlyPassing).toEqual(['A']);
    expect(tasks[0]!.regressed).toBeUndefined();
    expect(tasks[0]!.firstPassedIteration).toBe(1);
    expect(tasksVerdict(tasks, round)).toMatchObject({ ok: true, reason: 'tasks 2/2 verified' });
  });

  it('the mode: as the plan says; else after every iteration when the checks took at most 30 s, else at the gate', () => {
    expect(chooseTaskCheckMode('gate', 10)).toBe('gate');
    expect(chooseTaskCheckMode('off', 10)).toBe('off');
    expect(chooseTaskCheckMode(undefined, QUICK_TASK_CHECKS_MS)).toBe('iteration');
    expect(chooseTaskCheckMode(undefined, QUICK_TASK_CHECKS_MS + 1)).toBe('gate');
    expect(chooseTaskCheckMode(undefined, undefined)).toBe('gate');
  });

  it('the baseline: a check that passes on the untouched tree is vacuous; prose in <verify> is not a command', async () => {
    const tasks = [task('Vacuous', 'true'), task('Real', 'test -f built'), task('Prose', 'Run the tests and see them pass')];
    const b = await runBaseline(['echo fine', 'exit 1'], tasks, { cwd: dir });
    expect(b.vacuous).toHaveLength(2);
    expect(b.vacuous[0]).toContain('verify command `echo fine` already passes');
    expect(b.vacuous[1]).toContain('task "Vacuous"');
    expect(b.notCommands).toEqual([expect.stringContaining('the <verify> of task "Prose"')]);
    expect(tasks.map((t) => t.firstPassedIteration)).toEqual([0, null, null]);
    expect(b.taskChecksMs).toBeGreaterThanOrEqual(0);
  });
});
