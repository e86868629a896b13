// `ralph exec` through the built CLI: the acceptance gate (docs/signals.md#acceptance-gate, docs/plans.md#the-summary-file,
// docs/plans.md#verify-commands) — each reason a completion is rejected reaches the next iteration's prompt.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertBuilt, describeRun, eventsOf, planText, removeTempDirs, runExec, type ExecRun, type Step } from './helpers/exec-harness.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

const claim: Step = { say: '###PLAN_COMPLETE###' };
const complete: Step[] = [{ summary: true }, claim];

/** The first completion was rejected for `pattern`, the second accepted, and the second prompt says why. */
function expectRejectedThenAccepted(run: ExecRun, pattern: RegExp, expect: typeof import('vitest').expect): string {
  expect(run.code, describeRun(run)).toBe(0);
  expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2 });
  const [rejected, accepted] = eventsOf(run, 'gate');
  expect(rejected).toMatchObject({ iteration: 1, accepted: false });
  expect(rejected!.reason).toMatch(pattern);
  expect(accepted).toMatchObject({ iteration: 2, accepted: true });
  expect(run.calls![1]!.fresh).toBe('0');
  expect(run.calls![1]!.prompt).toContain(rejected!.reason);
  return rejected!.reason as string;
}

describe.concurrent('the acceptance gate: every reason, told to the next iteration', () => {
  it('no summary file', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [[claim], complete] } });
    const reason = expectRejectedThenAccepted(run, /does not exist/, expect);
    expect(reason).toContain('plan.summary.json');
  });

  it('a summary that is not valid JSON', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [[{ write: 'plan.summary.json', content: '{"plan": "test",' }, claim], complete] } });
    expectRejectedThenAccepted(run, /not valid JSON/, expect);
  });

  it('a schema field: names the field and what is wrong', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [[{ summary: { status: 'done', tasks: [] } }, claim], complete] } });
    const reason = expectRejectedThenAccepted(run, /summary schema/, expect);
    expect(reason).toContain('status: expected "complete", got "done"');
    expect(reason).toContain('tasks: at least one task is required');
  });

  it('a summary naming another plan', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [[{ summary: { plan: 'some-other-plan' } }, claim], complete] } });
    expectRejectedThenAccepted(run, /plan: is "some-other-plan", expected "test"/, expect);
  });

  it('the plan id defaults to the file stem: a summary must name that', async ({ expect }) => {
    const plan = planText().replace('id: test\n', '');
    const wrong = await runExec({ planFile: 'feature.md', plan, args: ['--max-iterations', '1'], scenario: { iterations: [complete] } });
    expect(eventsOf(wrong, 'gate')[0]!.reason).toContain('plan: is "test", expected "feature"');
    const right = await runExec({ planFile: 'feature.md', plan, scenario: { plan: 'feature', iterations: [complete] } });
    expect(right.code, describeRun(right)).toBe(0);
  });

  it('a summary from before the run (old or with a future mtime) is moved aside: it never counts', async ({ expect }) => {
    const summary = JSON.stringify({ plan: 'test', status: 'complete', tasks: [{ name: 'Task 1', status: 'done' }] });
    for (const mtime of [new Date(Date.now() - 3_600_000), new Date(Date.now() + 3_600_000)]) {
      const run = await runExec({
        files: { 'plan.summary.json': { content: summary, mtime } },
        scenario: { iterations: [[claim], complete] },
      });
      expectRejectedThenAccepted(run, /does not exist/, expect);
      expect(run.result!.warnings.join('\n')).toMatch(/summary file was already there before the run started: moved it to .*summary-before-run\.json/);
      expect(readFileSync(join(run.runDir!, 'summary-before-run.json'), 'utf8')).toBe(summary);
    }
  });

  it('a failing verify command: its command and the tail of its output are in the next prompt', async ({ expect }) => {
    const verify = 'test -f built.txt || { echo "first line of noise"; echo "built.txt missing: marker-51c"; exit 3; }';
    const run = await runExec({
      plan: planText({ frontMatter: ['verify:', `  - '${verify}'`] }),
      scenario: { iterations: [complete, [{ write: 'built.txt', content: 'ok' }, ...complete]] },
    });
    const reason = expectRejectedThenAccepted(run, /exited 3/, expect);
    expect(reason).toContain(verify);
    expect(reason).toContain('built.txt missing: marker-51c');
    expect(eventsOf(run, 'gate')[1]!.reason).toMatch(/1 verify command\(s\) passed/);
  });

  it('verify commands run in order with sh -c in the working directory; the first failure is reported', async ({ expect }) => {
    const run = await runExec({
      plan: planText({ frontMatter: ['verify:', '  - test -f here.txt', '  - echo second-ran > second.txt; exit 1', '  - echo third-ran > third.txt'] }),
      scenario: { iterations: [[{ write: 'here.txt', content: '' }, ...complete]] },
      args: ['--max-iterations', '1'],
    });
    expect(run.code, describeRun(run)).toBe(3);
    expect(eventsOf(run, 'gate')[0]!.reason).toContain('`echo second-ran > second.txt; exit 1` exited 1');
    // Every command ran once before the first iteration (checks that can fail); at the gate the
    // first failure stops the rest.
    expect(existsSync(join(run.work, 'second.txt'))).toBe(true);
    expect(run.result!.receipts[0].checks.map((c: { check: string; ok: boolean }) => [c.check, c.ok])).toEqual([
      ['summary', true],
      ['verify: test -f here.txt', true],
      ['verify: echo second-ran > second.txt; exit 1', false],
    ]);
  });

  it('require_summary: false accepts a claim without a summary, but verify still runs', async ({ expect }) => {
    const noSummary = await runExec({
      plan: planText({ frontMatter: ['require_summary: false'] }),
      scenario: { iterations: [[claim]] },
    });
    expect(noSummary.code, describeRun(noSummary)).toBe(0);
    expect(noSummary.result).toMatchObject({ outcome: 'complete', iterations: 1 });

    const verifyFails = await runExec({
      plan: planText({ frontMatter: ['require_summary: false', 'verify: [exit 4]'] }),
      scenario: { iterations: [[claim]] },
      args: ['--max-iterations', '2'],
    });
    expect(verifyFails.code, describeRun(verifyFails)).toBe(3);
    expect(eventsOf(verifyFails, 'gate').map((g) => g.accepted)).toEqual([false, false]);
  });

  it('a rejected claim\'s files are moved to iterations/<n>/ so the next iteration starts clean', async ({ expect }) => {
    const run = await runExec({
      scenario: {
        iterations: [
          [{ write: 'TASK_COMPLETE', content: 'done, I think' }, { write: 'TASK_COMPLETE.md', content: '# Done' }],
          [{ say: 'still going' }],
          [{ summary: true }, { write: 'TASK_COMPLETE', content: 'done now' }],
        ],
      },
    });
    expect(run.code, describeRun(run)).toBe(0);
    // Iteration 2 made no claim: the moved files did not count again.
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 3 });
    expect(eventsOf(run, 'decision').map((e) => e.decision.kind)).toEqual(['complete', 'none', 'complete']);
    const aside = join(run.runDir!, 'iterations', '1');
    expect(readFileSync(join(aside, 'TASK_COMPLETE'), 'utf8')).toBe('done, I think');
    expect(readFileSync(join(aside, 'TASK_COMPLETE.md'), 'utf8')).toBe('# Done');
    expect(existsSync(join(run.work, 'TASK_COMPLETE.md'))).toBe(false);
  });
});

describe.concurrent('where the summary file is', () => {
  it('default: <plan dir>/<plan stem>.summary.json, given as RALPH_SUMMARY', async ({ expect }) => {
    const run = await runExec({ planFile: 'plans/feature.md', plan: planText(), scenario: { iterations: [complete] } });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.calls![0]!.env.RALPH_SUMMARY).toBe(join(run.work, 'plans', 'feature.summary.json'));
  });

  it("the plan's summary: key, relative to the plan's folder", async ({ expect }) => {
    const run = await runExec({
      planFile: 'plans/feature.md',
      plan: planText({ frontMatter: ['summary: ../reports/feature.json'] }),
      scenario: { iterations: [complete] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.calls![0]!.env.RALPH_SUMMARY).toBe(join(run.work, 'reports', 'feature.json'));
    expect(existsSync(join(run.work, 'reports', 'feature.json'))).toBe(true);
  });

  it('--summary, relative to the current directory, overrides the plan', async ({ expect }) => {
    const run = await runExec({
      planFile: 'plans/feature.md',
      plan: planText({ frontMatter: ['summary: ../reports/feature.json'] }),
      args: ['--summary', 'out/s.json'],
      scenario: { iterations: [complete] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.calls![0]!.env.RALPH_SUMMARY).toBe(join(run.work, 'out', 's.json'));
  });

  it('a summary written where the plan does not look is not accepted', async ({ expect }) => {
    const run = await runExec({
      args: ['--summary', 'out/s.json', '--max-iterations', '1'],
      scenario: {
        iterations: [[{ write: 'plan.summary.json', content: JSON.stringify({ plan: 'test', status: 'complete', tasks: [{ name: 'T', status: 'done' }] }) }, claim]],
      },
    });
    expect(run.code, describeRun(run)).toBe(3);
    expect(eventsOf(run, 'gate')[0]!.reason).toMatch(/out\/s\.json does not exist/);
  });
});
