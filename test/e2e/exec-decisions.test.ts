// `ralph exec` through the built CLI: every row of the decision table of docs/signals.md#decisions, with the
// lead's choices where the contract is silent (max_bailouts in a row, non-zero exits, limits).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertBuilt, describeRun, eventsOf, iterationsCalled, planText, removeTempDirs, runExec, type Step, steps, GRACE } from './helpers/exec-harness.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

const { complete, nothing, blockerObservation } = steps;


describe.concurrent('decision table (docs/signals.md#decisions)', () => {
  it('complete: accepted in the iteration that claims it, no iteration wasted', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [complete, nothing] } });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', exitCode: 0, iterations: 1, bailouts: 0 });
    expect(iterationsCalled(run)).toEqual([1]);
    expect(eventsOf(run, 'gate')).toMatchObject([{ iteration: 1, accepted: true }]);
    expect(run.leftovers).toEqual([]);
  });

  it('complete rejected, then accepted: the next iteration continues the context and is told exactly why', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [[{ say: '###PLAN_COMPLETE###' }], complete] } });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2 });
    const [rejected, accepted] = eventsOf(run, 'gate');
    expect(rejected).toMatchObject({ iteration: 1, accepted: false });
    expect(rejected!.reason).toMatch(/does not exist/);
    expect(accepted).toMatchObject({ iteration: 2, accepted: true });
    const second = run.calls![1]!;
    expect(second.fresh).toBe('0');
    expect(second.prompt).toContain(rejected!.reason);
  });

  it('bailout: the next iteration starts fresh with the reason and the plan\'s Progress section', async ({ expect }) => {
    const progress = 'Task 1 half done: parser written, tests missing (progress-marker-7f3)';
    const run = await runExec({
      plan: planText({ progress, observations: 'The cache is flaky (observation-marker-2c9)' }),
      scenario: { iterations: [[{ say: '###BAILOUT:context window nearly full###' }], complete] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2, bailouts: 1 });
    const [first, second] = run.calls!;
    expect(first!.fresh).toBe('1');
    expect(second!.fresh).toBe('1');
    expect(second!.env.RALPH_FRESH_CONTEXT).toBe('1');
    expect(second!.prompt).toContain('context window nearly full');
    // The plan itself carries Progress once; the resume prompt repeats it as its own section.
    const count = (text: string) => text.split('progress-marker-7f3').length - 1;
    expect(count(first!.prompt)).toBe(1);
    expect(count(second!.prompt)).toBe(2);
    expect(second!.prompt.split('observation-marker-2c9').length - 1).toBe(2);
  });

  it('max_bailouts: N bailouts in a row are allowed, the (N+1)th ends exhausted (exit 3)', async ({ expect }) => {
    const run = await runExec({
      args: ['--max-bailouts', '1'],
      scenario: { iterations: [[{ say: '###BAILOUT:again###' }]] },
    });
    expect(run.code, describeRun(run)).toBe(3);
    expect(run.result).toMatchObject({ outcome: 'exhausted', exitCode: 3, iterations: 2, bailouts: 2 });
    expect(run.result!.reason).toMatch(/^max_bailouts reached/);
    expect(iterationsCalled(run)).toEqual([1, 2]);
  });

  it('max_bailouts defaults to 3: the 4th bailout in a row ends the run', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [[{ say: '###BAILOUT:again###' }]] } });
    expect(run.code, describeRun(run)).toBe(3);
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 4, bailouts: 4 });
    expect(run.result!.reason).toMatch(/^max_bailouts reached/);
  });

  it('max_bailouts from the front matter: 0 ends the run on the first bailout', async ({ expect }) => {
    const run = await runExec({
      plan: planText({ frontMatter: ['max_bailouts: 0'] }),
      scenario: { iterations: [[{ say: '###BAILOUT:first###' }], complete] },
    });
    expect(run.code, describeRun(run)).toBe(3);
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 1, bailouts: 1 });
    expect(run.result!.reason).toMatch(/^max_bailouts reached/);
  });

  it('max_bailouts counts bailouts in a row; result.json bailouts counts them all', async ({ expect }) => {
    const bail: Step[] = [{ say: '###BAILOUT:tired###' }];
    const run = await runExec({
      args: ['--max-bailouts', '1'],
      scenario: { iterations: [bail, nothing, bail, nothing, bail, complete] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 6, bailouts: 3 });
  });

  it.for([
    ['###TASK_FAILED:Task 1###', 'TASK_FAILED'],
    ['###PLAN_FAILED:integration suite###', 'PLAN_FAILED'],
    ['###BUILD_FAILED:web###', 'BUILD_FAILED'],
    ['###TEST_FAILED:api:3###', 'TEST_FAILED'],
  ] as const)('failed: %s ends the run at once (exit 1); the agent is stopped and never called again', async ([line, name], { expect }) => {
    const run = await runExec({
      args: GRACE,
      // The agent would sleep past the test's timeout: only ralph stopping it ends the run.
      scenario: { iterations: [[{ say: line }, { sleep: 3_600_000 }], complete] },
    });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.result).toMatchObject({ outcome: 'failed', exitCode: 1, iterations: 1 });
    expect(run.result!.reason).toContain(name);
    expect(run.result!.signals).toMatchObject([{ iteration: 1, name, source: 'stdout' }]);
    expect(iterationsCalled(run)).toEqual([1]);
    expect(run.leftovers).toEqual([]);
  });

  it('blocked with evidence (an observation): exit 2 and BLOCKED.md in the run directory', async ({ expect }) => {
    const run = await runExec({
      scenario: { iterations: [[blockerObservation('No staging access'), { say: '###BLOCKED:need staging credentials###' }], complete] },
    });
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.result).toMatchObject({ outcome: 'blocked', exitCode: 2, iterations: 1 });
    expect(run.result!.reason).toContain('need staging credentials');
    const blocked = join(run.runDir!, 'BLOCKED.md');
    expect(existsSync(blocked)).toBe(true);
    expect(readFileSync(blocked, 'utf8')).toContain('need staging credentials');
    expect(iterationsCalled(run)).toEqual([1]);
  });

  it('blocked without evidence is rejected: the run goes on, told why, in the same context', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [[{ say: '###BLOCKED:not sure what to do###' }], complete] } });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2 });
    expect(existsSync(join(run.runDir!, 'BLOCKED.md'))).toBe(false);
    const second = run.calls![1]!;
    expect(second.fresh).toBe('0');
    expect(second.prompt).toContain('not sure what to do');
    expect(second.prompt).toMatch(/evidence/);
  });

  it('blocked with a reason on the plan\'s reject list is rejected even with evidence (case, hyphens, trailing text)', async ({ expect }) => {
    const run = await runExec({
      plan: planText({ frontMatter: ['blockers:', '  reject: [architectural_decision, needs_credentials]'] }),
      scenario: {
        iterations: [[blockerObservation('Which database?'), { say: '###BLOCKED:Architectural-Decision: which database to use###' }], complete],
      },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2 });
    expect(eventsOf(run, 'gate')[0]).toMatchObject({ iteration: 1, accepted: false });
    expect(run.calls![1]!.prompt).toContain('architectural_decision');
  });

  it('evidence must be a valid blocker observation in the same iteration', async ({ expect }) => {
    const invalidObservation: Step = { say: '<observation type="blocker" severity="high">\n<title>no detail given</title>\n</observation>' };
    const run = await runExec({
      scenario: {
        iterations: [
          [blockerObservation('seen one iteration early')],
          [{ say: '###BLOCKED:evidence was last iteration###' }],
          nothing,
          [invalidObservation, { say: '###BLOCKED:evidence is invalid###' }],
          complete,
        ],
      },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 5 });
    expect(eventsOf(run, 'gate').filter((g) => !g.accepted).map((g) => g.iteration)).toEqual([2, 4]);
    expect(run.findings.map((f) => f.valid)).toEqual([true, false]);
  });

  it('blocker claims rejected in two iterations in a row: the second escalates (exit 2)', async ({ expect }) => {
    const run = await runExec({
      scenario: { iterations: [[{ say: '###BLOCKED:first doubt###' }], [{ say: '###BLOCKED:second doubt###' }], complete] },
    });
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.result).toMatchObject({ outcome: 'blocked', iterations: 2 });
    expect(run.result!.reason).toContain('second doubt');
    expect(existsSync(join(run.runDir!, 'BLOCKED.md'))).toBe(true);
    expect(iterationsCalled(run)).toEqual([1, 2]);
  });

  it('any other decision between two rejected blocker claims resets the count', async ({ expect }) => {
    const doubt: Step[] = [{ say: '###BLOCKED:a doubt###' }];
    const run = await runExec({ scenario: { iterations: [doubt, nothing, doubt, complete] } });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 4 });
  });

  it('no signal: the next iteration continues the same context', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [nothing, nothing, complete] } });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 3, bailouts: 0 });
    expect(run.calls!.map((c) => c.fresh)).toEqual(['1', '0', '0']);
    expect(eventsOf(run, 'decision').map((e) => e.decision.kind)).toEqual(['none', 'none', 'complete']);
  });

  it('three non-zero exits without a decision in a row: failed (exit 1)', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [[{ say: 'oops' }, { exit: 3 }]] } });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.result).toMatchObject({ outcome: 'failed', iterations: 3 });
    expect(iterationsCalled(run)).toEqual([1, 2, 3]);
    expect(run.calls!.map((c) => c.fresh)).toEqual(['1', '0', '0']);
    expect(run.result!.reason).toMatch(/non-zero/);
  });

  it('an agent that exits 1 at once with a message on stderr: a setup problem, and the reason quotes the message', async ({ expect }) => {
    const refusal = '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons';
    const run = await runExec({ scenario: { iterations: [[{ stderr: refusal }, { exit: 1 }]] } });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.result).toMatchObject({ outcome: 'failed', iterations: 3 });
    expect(run.result!.reason).toMatch(/^setup problem: the agent failed the same way 3 times in a row before doing anything \(exited 1\)/);
    expect(run.result!.reason).toContain(refusal);
    // Each failed iteration says why, in its warning event.
    const warnings = eventsOf(run, 'warning').map((e) => e.message);
    expect(warnings.filter((w) => w.includes(refusal))).toHaveLength(3);
  });

  it('failures after the agent did something are not a setup problem, and the reason still quotes the last error', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [[{ say: 'working' }, { stderr: 'disk full' }, { exit: 2 }]] } });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.result!.reason).toBe('the executor exited non-zero without a decision 3 times in a row (last: exited 2: disk full)');
  });

  it('an agent that died before reporting a session is not said to continue one: the next iteration is fresh', async ({ expect }) => {
    const assistant = (text: string) => ({ say: JSON.stringify({ type: 'assistant', message: { id: 'm1', content: [{ type: 'text', text }] } }) });
    const run = await runExec({
      args: ['--stream-format', 'claude-json'],
      scenario: {
        iterations: [
          [{ stderr: 'connection reset' }, { exit: 1 }],
          [{ summary: true }, assistant('Done.\n###PLAN_COMPLETE###')],
        ],
      },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(eventsOf(run, 'iteration-start').map((e) => [e.fresh, e.prompt])).toEqual([
      [true, 'full'],
      [true, 'resume'],
    ]);
    expect(run.calls!.map((c) => c.fresh)).toEqual(['1', '1']);
    expect(eventsOf(run, 'warning').map((e) => e.message)).toContain('iteration 2: the agent reported no session to continue; starting a fresh context');
  });

  it('a zero exit between non-zero exits resets the count', async ({ expect }) => {
    const crash: Step[] = [{ exit: 1 }];
    // --max-stalls 0: these iterations change nothing, and the stall breaker is not under test.
    const run = await runExec({ args: ['--max-stalls', '0'], scenario: { iterations: [crash, crash, nothing, crash, crash, complete] } });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 6 });
  });

  it('iterations ralph stopped itself (--iteration-timeout) never count as non-zero exits', async ({ expect }) => {
    const run = await runExec({
      args: ['--iteration-timeout', '300ms', '--max-iterations', '4', '--max-stalls', '0'],
      scenario: { iterations: [[{ say: 'thinking' }, { sleep: 30_000 }]] },
    });
    expect(run.code, describeRun(run)).toBe(3);
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 4 });
    expect(run.result!.reason).toMatch(/^max_iterations reached/);
    expect(run.leftovers).toEqual([]);
  });

  it('max_iterations: exhausted (exit 3), the limit first in the reason', async ({ expect }) => {
    const run = await runExec({ args: ['--max-iterations', '2'], scenario: { iterations: [nothing] } });
    expect(run.code, describeRun(run)).toBe(3);
    expect(run.result).toMatchObject({ outcome: 'exhausted', exitCode: 3, iterations: 2 });
    expect(run.result!.reason).toMatch(/^max_iterations reached/);
    expect(iterationsCalled(run)).toEqual([1, 2]);
  });

  it('max_iterations defaults to 20', async ({ expect }) => {
    const run = await runExec({ args: ['--max-stalls', '0'], scenario: { iterations: [nothing] } });
    expect(run.code, describeRun(run)).toBe(3);
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 20 });
    expect(run.calls).toHaveLength(20);
  });

  it('max_iterations from the front matter; the flag overrides it', async ({ expect }) => {
    const plan = planText({ frontMatter: ['max_iterations: 1'] });
    const fromPlan = await runExec({ plan, scenario: { iterations: [nothing] } });
    expect(fromPlan.result).toMatchObject({ outcome: 'exhausted', iterations: 1 });
    const overridden = await runExec({ plan, args: ['--max-iterations', '2'], scenario: { iterations: [nothing] } });
    expect(overridden.result).toMatchObject({ outcome: 'exhausted', iterations: 2 });
  });
});
