// `ralph exec` through the built CLI: the priority of several signals in one iteration, the
// signal grace, where signals are (not) read (docs/signals.md#which-output-is-read), and the prompt kinds over a run.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertBuilt, describeRun, eventsOf, removeTempDirs, runExec, type Step, steps, GRACE } from './helpers/exec-harness.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

const { complete, nothing, blockerObservation } = steps;


describe.concurrent('priority within one iteration (blocked > failed > bailout > complete)', () => {
  it('BLOCKED + FAILED → blocked', async ({ expect }) => {
    const run = await runExec({
      args: ['--signal-grace', '5s'],
      scenario: { iterations: [[{ say: '###TASK_FAILED:Task 1###' }, blockerObservation('stuck'), { say: '###BLOCKED:no access###' }]] },
    });
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.result!.outcome).toBe('blocked');
  });

  it('FAILED + BAILOUT → failed', async ({ expect }) => {
    const run = await runExec({
      args: ['--signal-grace', '5s'],
      scenario: { iterations: [[{ say: '###BAILOUT:context full###' }, { say: '###BUILD_FAILED:core###' }], complete] },
    });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.result).toMatchObject({ outcome: 'failed', iterations: 1 });
  });

  it('BAILOUT + PLAN_COMPLETE → bailout (the completion is not weighed)', async ({ expect }) => {
    const run = await runExec({
      args: ['--signal-grace', '5s'],
      scenario: { iterations: [[{ summary: true }, { say: '###PLAN_COMPLETE###' }, { say: '###BAILOUT:not really done###' }], complete] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2, bailouts: 1 });
    expect(eventsOf(run, 'decision')[0]!.decision).toMatchObject({ kind: 'bailout', reason: 'not really done' });
    expect(eventsOf(run, 'gate')).toHaveLength(1);
    expect(run.calls![1]!.fresh).toBe('1');
  });

  it('two bailouts → the last reason', async ({ expect }) => {
    const run = await runExec({
      args: ['--signal-grace', '5s'],
      scenario: { iterations: [[{ say: '###BAILOUT:alpha-reason###' }, { say: '###BAILOUT:omega-reason###' }], complete] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(eventsOf(run, 'decision')[0]!.decision).toMatchObject({ kind: 'bailout', reason: 'omega-reason' });
    expect(run.calls![1]!.prompt).toContain('omega-reason');
    expect(run.calls![1]!.prompt).not.toContain('alpha-reason');
  });

  it('file claims come after output signals: BLOCKED.md wins over an earlier ###BLOCKED### line', async ({ expect }) => {
    const run = await runExec({
      scenario: {
        iterations: [[{ say: '###BLOCKED:from the output###' }, { write: 'BLOCKED.md', content: 'from the file\ntried everything\n' }]],
      },
    });
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.result!.reason).toContain('from the file');
    expect(run.result!.reason).not.toContain('from the output');
  });
});

describe.concurrent('the signal grace', () => {
  it('after a bailout the hanging agent is stopped after the grace and the run goes on', async ({ expect }) => {
    const run = await runExec({
      args: GRACE,
      scenario: { iterations: [[{ say: '###BAILOUT:handing over###' }, { hang: true }], complete] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2, bailouts: 1 });
    expect(run.leftovers).toEqual([]);
  });

  it('signals written during the grace still count', async ({ expect }) => {
    const run = await runExec({
      args: ['--signal-grace', '3s'],
      scenario: {
        iterations: [[{ say: '###BAILOUT:handing over###' }, { sleep: 200 }, blockerObservation('no access'), { say: '###BLOCKED:no access###' }, { hang: true }]],
      },
    });
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.result!.outcome).toBe('blocked');
    expect(run.leftovers).toEqual([]);
  });
});

describe.concurrent('where signals are read', () => {
  it('a signal on stderr counts', async ({ expect }) => {
    const run = await runExec({ args: GRACE, scenario: { iterations: [[{ stderr: '###TASK_FAILED:Task 1###' }], complete] } });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.result!.signals).toMatchObject([{ name: 'TASK_FAILED', args: ['Task 1'], source: 'stderr' }]);
  });

  it('a signal split across writes, with CRLF and surrounding spaces, counts', async ({ expect }) => {
    const run = await runExec({
      args: GRACE,
      scenario: { iterations: [[{ raw: '  ###PLAN_FA' }, { sleep: 50 }, { raw: 'ILED:e2e suite###  \r\n' }], complete] },
    });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.result!.signals).toMatchObject([{ name: 'PLAN_FAILED', args: ['e2e suite'] }]);
  });

  it('signals inside a code fence or an observation, malformed ones and ones with text around them are never acted on', async ({ expect }) => {
    const noise: Step[] = [
      { say: 'Here is an example:\n```text\n###TASK_FAILED:Task 1###\n```' },
      { say: '~~~~\n```\n###BLOCKED:inside tildes###\n~~~~' },
      { say: '<observation type="insight" severity="low">\n###PLAN_FAILED:inside an observation###\n<title>t</title>\n<detail>d</detail>\n</observation>' },
      { say: '###TEST_FAILED:api:many###' },
      { say: '###NOT_A_SIGNAL:x###' },
      { say: 'I would print ###BUILD_FAILED:core### if it broke' },
    ];
    const run = await runExec({ args: GRACE, scenario: { iterations: [noise, complete] } });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2 });
    expect(run.result!.signals.map((s: { name: string }) => s.name)).toEqual(['PLAN_COMPLETE']);
    expect(eventsOf(run, 'ignored').map((e) => e.why)).toEqual(['inside a code fence', 'inside a code fence', 'inside an observation']);
    expect(eventsOf(run, 'malformed')).toHaveLength(2);
  });

  it('stdout and stderr are split into lines on their own: halves on each never make a signal', async ({ expect }) => {
    const run = await runExec({
      args: GRACE,
      scenario: { iterations: [[{ raw: '###TASK_FAI' }, { stderr: 'LED:Task 1###' }, { say: '' }], complete] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result!.signals.map((s: { name: string }) => s.name)).toEqual(['PLAN_COMPLETE']);
  });

  it('an unclosed fence ends with the iteration: the next iteration reads signals again', async ({ expect }) => {
    const run = await runExec({
      args: GRACE,
      scenario: { iterations: [[{ say: '```\n###TASK_FAILED:Task 1###' }], [{ say: '###TASK_FAILED:Task 1###' }]] },
    });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.result).toMatchObject({ outcome: 'failed', iterations: 2 });
  });
});

describe.concurrent('the prompts of a run', () => {
  it('iterations 1–3 full, 4 on condensed, a resume prompt after a bailout, then full again in the fresh context', async ({ expect }) => {
    const run = await runExec({
      args: ['--max-stalls', '0'],
      scenario: { iterations: [nothing, nothing, nothing, nothing, [{ say: '###BAILOUT:fresh start please###' }], nothing, complete] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    const kinds = eventsOf(run, 'iteration-start').map((e) => e.prompt);
    expect(kinds).toEqual(['full', 'full', 'full', 'condensed', 'condensed', 'resume', 'condensed']);
    expect(run.calls!.map((c) => c.fresh)).toEqual(['1', '0', '0', '0', '0', '1', '0']);
    // The condensed prompt is much shorter than the full one; both carry the plan.
    const [full, , , condensed] = run.calls!;
    expect(condensed!.prompt.length).toBeLessThan(full!.prompt.length - 1_000);
    expect(condensed!.prompt).toContain('<name>Task 1</name>');
  });
});

