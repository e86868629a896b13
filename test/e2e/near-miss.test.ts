// Near misses through the built CLI (docs/overnight.md#near-misses): a line that almost is a
// signal decides nothing, is shown, and is quoted in the next prompt with how to write it.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertBuilt, describeRun, eventsOf, removeTempDirs, runExec, type Step } from './helpers/exec-harness.js';
import { claude } from './longrun-helpers/index.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

describe.concurrent('near misses', () => {
  it('"Done! ###PLAN_COMPLETE###" then the corrected signal after feedback: complete in 2', async ({ expect }) => {
    const run = await runExec({
      scenario: {
        iterations: [
          [{ summary: true }, { say: 'Done! ###PLAN_COMPLETE###' }],
          [{ say: '###PLAN_COMPLETE###' }],
        ],
      },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2 });
    expect(eventsOf(run, 'near_miss')).toEqual([
      expect.objectContaining({ iteration: 1, reason: 'not_alone', text: 'Done! ###PLAN_COMPLETE###', correct: '###PLAN_COMPLETE###' }),
    ]);
    const second = run.calls![1]!.prompt;
    expect(second).toContain('looked like signals but were not read as signals');
    expect(second).toContain('`Done! ###PLAN_COMPLETE###`');
    expect(second).toContain('###PLAN_COMPLETE###');
  });

  it('a near miss is never acted on, and without a decision the run goes on', async ({ expect }) => {
    const run = await runExec({
      args: ['--max-iterations', '2', '--max-stalls', '0'],
      scenario: { iterations: [[{ summary: true }, { say: '**###PLAN_COMPLETE###**' }, { say: '###plan_complete###' }]] },
    });
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 2 });
    expect(eventsOf(run, 'near_miss').map((e) => e.reason)).toEqual(['markdown', 'wrong_case', 'markdown', 'wrong_case']);
    expect(eventsOf(run, 'gate')).toEqual([]);
  });

  it('claude-json: a fence left open in one assistant message does not swallow a signal in the next', async ({ expect }) => {
    const steps = [
      { summary: true },
      claude.init('s-fence'),
      claude.text('Here is the diff:\n```diff\n+ a line'),
      claude.text('###PLAN_COMPLETE###'),
      claude.result('s-fence', 0.01),
    ] as Step[];
    const run = await runExec({ args: ['--stream-format', 'claude-json'], scenario: { iterations: [steps] } });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 1 });
  });
});
