// `ralph exec` through the built CLI: the deeper gate (docs/plans.md#task-checks,
// #checks-that-can-fail, #the-tamper-guard; docs/loop.md#limits "rejected_repeatedly").
// ralph, not the agent, runs every task's <verify>, refuses checks that cannot fail, and rejects
// a claim made after the checks themselves were changed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { runRalph } from '../helpers/run-ralph.js';
import { assertBuilt, describeRun, eventsOf, makeTempDir, removeTempDirs, runExec, type Step } from './helpers/exec-harness.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

const claim: Step = { say: '###PLAN_COMPLETE###' };
const complete: Step[] = [{ summary: true }, claim];

function plan(tasks: { name: string; verify?: string; files?: string }[], frontMatter: string[] = []): string {
  return [
    '---',
    'id: test',
    ...frontMatter,
    '---',
    '# Three things',
    '',
    '<tasks>',
    ...tasks.map(
      (t) =>
        `  <task><name>${t.name}</name>${t.files ? `<files>${t.files}</files>` : ''}<action>Make ${t.name}.</action>${t.verify ? `<verify>${t.verify}</verify>` : ''}</task>`,
    ),
    '</tasks>',
    '',
    '## Progress',
    '',
  ].join('\n');
}

const threeTasks = plan([
  { name: 'Alpha', verify: 'test -f alpha.txt' },
  { name: 'Beta', verify: 'test -f beta.txt' },
  { name: 'Gamma', verify: 'test -f gamma.txt || { echo "gamma.txt is missing"; exit 1; }' },
]);

describe.concurrent('the deeper gate', () => {
  it('a claim after two of three tasks is rejected naming the third check; the next prompt names it; result.json has three passing tasks', async ({ expect }) => {
    const run = await runExec({
      plan: threeTasks,
      scenario: {
        iterations: [
          [{ write: 'alpha.txt' }, { write: 'beta.txt' }, ...complete],
          [{ write: 'gamma.txt' }, ...complete],
        ],
      },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2, tasksVerified: 'tasks 3/3 verified' });
    const [rejected, accepted] = eventsOf(run, 'gate');
    expect(rejected).toMatchObject({ iteration: 1, accepted: false });
    expect(rejected!.reason).toContain('task "Gamma" is not verified (tasks 2/3 verified)');
    expect(rejected!.reason).toContain('gamma.txt is missing');
    expect(accepted).toMatchObject({ iteration: 2, accepted: true });
    expect(run.calls![1]!.prompt).toContain('task "Gamma" is not verified');
    expect(run.calls![1]!.prompt).toContain('test -f gamma.txt');
    expect(run.result!.tasks.map((t: any) => [t.name, t.status, t.firstPassedIteration, t.iterations])).toEqual([
      ['Alpha', 'passing', 1, 1],
      ['Beta', 'passing', 1, 1],
      ['Gamma', 'passing', 2, 2],
    ]);
    // A receipt per iteration: the decision, the checks with their results, the rejection.
    const [first, second] = run.result!.receipts;
    expect(first).toMatchObject({ iteration: 1, decision: 'complete', costUsd: null, costEstimated: false });
    expect(first.rejection).toContain('task "Gamma"');
    expect(first.checks.map((c: any) => [c.check, c.ok])).toEqual([
      ['summary', true],
      ['task: Alpha', true],
      ['task: Beta', true],
      ['task: Gamma', false],
      ['tasks', false],
    ]);
    expect(second).toMatchObject({ iteration: 2, decision: 'complete', rejection: null });
    expect(run.status).toMatchObject({ tasksVerified: 'tasks 3/3 verified' });
    expect(run.stdout + run.stderr).toContain('tasks 2/3 verified');

    // The same facts where people look: ralph status, ralph runs --cost, the report.
    const status = await runRalph(['status', '--cwd', run.work, '--json']);
    const view = JSON.parse(status.stdout);
    expect(view).toMatchObject({ tasksVerified: 'tasks 3/3 verified' });
    expect(view.receipts.map((r: any) => r.decision)).toEqual(['complete', 'complete']);
    expect((await runRalph(['status', '--cwd', run.work])).stdout).toMatch(/tasks {6}tasks 3\/3 verified: Alpha passing, Beta passing, Gamma passing/);
    const cost = await runRalph(['runs', '--cost', '--cwd', run.work]);
    expect(cost.stdout).toMatch(/ITERATIONS +COST +TASKS/);
    expect(cost.stdout).toContain('Alpha 1 it. unknown; Beta 1 it. unknown; Gamma 2 it. unknown');
    expect(cost.stdout).toContain('1 accepted plan(s), $0.0000 in total (1 of unknown cost)');
    const report = await runRalph(['report', '--runs', join(run.work, '.ralph')]);
    expect(report.stdout).toContain('| complete \\(tasks 3/3 verified\\) |');
  });

  it('quick task checks run after every iteration: the next prompt names the first failing task, and a regression is named', async ({ expect }) => {
    const run = await runExec({
      plan: threeTasks,
      args: ['--max-iterations', '3'],
      scenario: {
        iterations: [[{ write: 'alpha.txt' }, { say: 'working' }], [{ remove: 'alpha.txt' }, { write: 'beta.txt' }], [{ say: 'hm' }]],
      },
    });
    expect(run.code, describeRun(run)).toBe(3);
    const prompt2 = run.calls![1]!.prompt;
    expect(prompt2).toContain('(tasks 1/3 verified)');
    expect(prompt2).toMatch(/first task whose check does not pass is "Beta"/);
    const prompt3 = run.calls![2]!.prompt;
    expect(prompt3).toContain('Regression');
    expect(prompt3).toContain('"Alpha"');
    expect(run.result!.warnings.join('\n')).toContain('regression: task "Alpha" passed before and fails now');
    const alpha = run.result!.tasks.find((t: any) => t.name === 'Alpha');
    expect(alpha).toMatchObject({ status: 'failing', firstPassedIteration: 1, regressed: true });
  });

  it('a task that starts to pass is progress for the stall breaker, though no file of the tree changed', async ({ expect }) => {
    // The checks look outside the working tree, where the work fingerprint does not.
    const elsewhere = makeTempDir();
    const outside = plan(['A', 'B', 'C'].map((name) => ({ name, verify: `test -f ${join(elsewhere, name)}` })));
    const run = await runExec({
      plan: outside,
      args: ['--max-stalls', '2'],
      scenario: { iterations: [[{ write: join(elsewhere, 'A') }], [{ write: join(elsewhere, 'B') }], [{ write: join(elsewhere, 'C') }], complete] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 4, tasksVerified: 'tasks 3/3 verified' });
    expect(run.result!.warnings.join('\n')).not.toContain('made no progress');
    // And without a task starting to pass, the same iterations are stalls.
    const idle = await runExec({ plan: outside, args: ['--max-stalls', '2'], scenario: { iterations: [[{ say: 'thinking' }]] } });
    expect(idle.result).toMatchObject({ outcome: 'exhausted', iterations: 2 });
    expect(idle.result!.reason).toMatch(/^no_progress/);
  });

  it('task_checks: gate runs them only for a claim; off never runs them', async ({ expect }) => {
    const gate = plan([{ name: 'Alpha', verify: 'test -f alpha.txt' }], ['task_checks: gate']);
    const atGate = await runExec({ plan: gate, scenario: { iterations: [[{ say: 'thinking' }], [{ write: 'alpha.txt' }, ...complete]] } });
    expect(atGate.code, describeRun(atGate)).toBe(0);
    expect(atGate.calls![1]!.prompt).not.toContain('first task whose check does not pass');
    expect(atGate.result!.receipts[0].checks).toEqual([]);
    expect(atGate.result!.tasks[0]).toMatchObject({ status: 'passing', firstPassedIteration: 2 });

    const off = plan([{ name: 'Alpha', verify: 'test -f alpha.txt' }], ['task_checks: off']);
    const never = await runExec({ plan: off, scenario: { iterations: [complete] } });
    expect(never.code, describeRun(never)).toBe(0);
    expect(never.result!.tasks).toBeUndefined();
  });

  it('a check that passes on the untouched tree is vacuous: a warning; with strict_checks: true the run is refused (exit 64)', async ({ expect }) => {
    const vacuous = plan([{ name: 'Alpha', verify: 'true' }]);
    const warned = await runExec({ plan: vacuous, scenario: { iterations: [complete] } });
    expect(warned.code, describeRun(warned)).toBe(0);
    expect(warned.result!.warnings.join('\n')).toMatch(/task "Alpha" \(`true`\) already passes before anything was changed: it is vacuous/);
    const warning = eventsOf(warned, 'warning').find((w) => /vacuous/.test(w.message));
    const firstIteration = warned.events.findIndex((e) => e.type === 'iteration-start');
    expect(warned.events.indexOf(warning!)).toBeLessThan(firstIteration);

    const refused = await runExec({ plan: plan([{ name: 'Alpha', verify: 'true' }], ['strict_checks: true']), scenario: { iterations: [complete] } });
    expect(refused.code, describeRun(refused)).toBe(64);
    expect(refused.stderr).toMatch(/strict_checks: 1 check\(s\) of .* already pass/);
    expect(refused.calls).toBeUndefined();
  });

  it('a plan verify that already passes is vacuous too', async ({ expect }) => {
    const run = await runExec({ plan: plan([{ name: 'Alpha' }], ['verify: [echo fine]', 'strict_checks: true']), scenario: { iterations: [complete] } });
    expect(run.code, describeRun(run)).toBe(64);
    expect(run.stderr).toContain('verify command `echo fine` already passes');
  });

  it('an agent that rewrites the protected test to `exit 0` and claims completion is rejected for tampering', async ({ expect }) => {
    const run = await runExec({
      plan: plan([{ name: 'Feature' }], ['verify: [sh test/check.sh]', 'protect: [test/**]', 'max_iterations: 2']),
      files: { 'test/check.sh': 'test -f feature.txt || { echo "feature.txt is missing"; exit 1; }\n' },
      scenario: { iterations: [[{ write: 'test/check.sh', content: 'exit 0\n' }, ...complete]] },
    });
    expect(run.code, describeRun(run)).toBe(3);
    const [gate] = eventsOf(run, 'gate');
    expect(gate).toMatchObject({ accepted: false });
    expect(gate!.reason).toContain('test/check.sh: changed from 1 line(s)');
    expect(gate!.reason).toContain('"exit 0');
    expect(gate!.reason).toContain('The rule: protect: test/**');
    expect(run.calls![1]!.prompt).toContain('test/check.sh: changed');
  });

  it('protect: in the config file guards every plan run there', async ({ expect }) => {
    const run = await runExec({
      plan: plan([{ name: 'Feature' }], ['verify: [sh test/check.sh]', 'max_iterations: 1']),
      files: { 'test/check.sh': 'test -f feature.txt\n', 'ralph.config.yaml': 'defaults:\n  protect: test/**\n' },
      scenario: { iterations: [[{ remove: 'test/check.sh' }, ...complete]] },
    });
    expect(run.code, describeRun(run)).toBe(3);
    expect(eventsOf(run, 'gate')[0]!.reason).toContain('test/check.sh: deleted (it had 1 line(s), 20 bytes)');
  });

  it('a test file a task lists in <files> and its check runs is protected without protect:, unless allow_check_changes', async ({ expect }) => {
    const tasks = [{ name: 'Feature', files: 'src/feature.js, test/feature.sh', verify: 'sh test/feature.sh' }];
    const scenario = { iterations: [[{ remove: 'test/feature.sh' }, { write: 'test/feature.sh', content: 'exit 0' }, ...complete]] };
    const files = { 'test/feature.sh': 'test -f src/feature.js\n' };
    const guarded = await runExec({ plan: plan(tasks, ['max_iterations: 1']), files, scenario });
    expect(eventsOf(guarded, 'gate')[0]!.reason).toContain('test/feature.sh: listed in the <files> of "Feature" and run by a check');
    const allowed = await runExec({ plan: plan(tasks, ['max_iterations: 1', 'allow_check_changes: true']), files, scenario });
    expect(allowed.code, describeRun(allowed)).toBe(0);
  });

  it('the same rejection three iterations in a row ends the run exhausted (rejected_repeatedly) after 3 iterations, not 20', async ({ expect }) => {
    const run = await runExec({ plan: threeTasks, scenario: { iterations: [[{ write: 'alpha.txt' }, ...complete]] } });
    expect(run.code, describeRun(run)).toBe(3);
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 3 });
    expect(run.result!.reason).toMatch(/^rejected_repeatedly: the same completion claim was rejected for the same reason in 3 iterations in a row/);
    expect(run.result!.reason).toContain('task "Beta" is not verified');
  });

  it('a plan without any check warns at the start that the summary alone decides', async ({ expect }) => {
    const run = await runExec({ plan: plan([{ name: 'Alpha' }]), scenario: { iterations: [complete] } });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result!.warnings.join('\n')).toContain('completion will be accepted on the summary alone');
    expect(readFileSync(join(run.runDir!, 'result.json'), 'utf8')).toContain('"receipts"');
  });
});
