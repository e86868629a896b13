// `ralph exec` through the built CLI: signal files and the older completion conventions
// (docs/signals.md#claims-made-through-files), the stale-file sweep (docs/loop.md#before-the-first-iteration), PR URLs, the checkbox, LOOP_COMPLETE, and the
// environment a command executor gets (docs/executors.md#environment).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertBuilt, describeRun, eventsOf, planText, removeTempDirs, runExec, steps } from './helpers/exec-harness.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

const { nothing } = steps;

const noSummaryPlan = planText({ frontMatter: ['require_summary: false'] });

describe.concurrent('stale signal files', () => {
  it('are removed before iteration 1 (with a warning), so one written again in iteration 1 is a new claim', async ({ expect }) => {
    const run = await runExec({
      plan: noSummaryPlan,
      files: {
        TASK_COMPLETE: 'old claim',
        'TASK_COMPLETE.md': 'old claim',
        'BLOCKED.md': 'old blocker\n',
        PR_URL: 'https://github.com/acme/old/pull/1',
      },
      scenario: { iterations: [[{ write: 'TASK_COMPLETE', content: 'old claim' }]] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    // Had the old file stayed, the identical one would be "unchanged": no claim. Had the old
    // PR_URL stayed, it would be the run's prUrl.
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 1, prUrl: null });
    expect(run.result!.signals).toEqual([{ iteration: 1, name: 'TASK_COMPLETE', args: [], source: 'TASK_COMPLETE' }]);
    const warning = run.result!.warnings.find((w: string) => w.includes('stale signal files'));
    expect(warning).toBeDefined();
    for (const name of ['TASK_COMPLETE.md', 'BLOCKED.md', 'PR_URL']) {
      expect(warning).toContain(name);
      expect(existsSync(join(run.work, name))).toBe(false);
    }
  });
});

describe.concurrent('file signals', () => {
  it.for(['TASK_COMPLETE', 'TASK_COMPLETE.md'])('a %s file is a completion claim, through the gate', async (name, { expect }) => {
    const run = await runExec({ scenario: { iterations: [[{ summary: true }, { write: name, content: 'all done' }]] } });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 1 });
    expect(run.result!.signals).toMatchObject([{ iteration: 1, name, source: name }]);
  });

  it('BLOCKED.md is a blocked claim: its first line is the reason, its first 5 lines the evidence', async ({ expect }) => {
    const content = ['Need the production API key', 'tried: env vars', 'tried: vault', 'tried: asking in the PR', 'line five', 'line six-secret'].join('\n');
    const run = await runExec({ scenario: { iterations: [[{ write: 'BLOCKED.md', content }]] } });
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.result).toMatchObject({ outcome: 'blocked', exitCode: 2, iterations: 1 });
    expect(run.result!.reason).toContain('Need the production API key');
    expect(run.result!.signals).toMatchObject([{ name: 'BLOCKED.md', args: ['Need the production API key'] }]);
    const escalation = readFileSync(join(run.runDir!, 'BLOCKED.md'), 'utf8');
    expect(escalation).toContain('Need the production API key');
    expect(escalation).toContain('line five');
    expect(escalation).not.toContain('line six-secret');
  });

  it('a BLOCKED.md whose reason is on the reject list is rejected and moved aside', async ({ expect }) => {
    const run = await runExec({
      plan: planText({ frontMatter: ['blockers: { reject: [needs_credentials] }'] }),
      scenario: { iterations: [[{ write: 'BLOCKED.md', content: 'Needs credentials\ntried nothing\n' }], [{ summary: true }, { say: '###PLAN_COMPLETE###' }]] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2 });
    expect(existsSync(join(run.work, 'BLOCKED.md'))).toBe(false);
    expect(readFileSync(join(run.runDir!, 'iterations', '1', 'BLOCKED.md'), 'utf8')).toContain('Needs credentials');
    expect(run.calls![1]!.prompt).toContain('needs_credentials');
  });
});

describe.concurrent('PR URL', () => {
  const url42 = 'https://github.com/acme/widgets/pull/42';
  const url43 = 'https://github.com/acme/widgets/pull/43';

  it('the first pull request URL in TASK_COMPLETE is the run\'s prUrl', async ({ expect }) => {
    const run = await runExec({
      plan: noSummaryPlan,
      scenario: { iterations: [[{ write: 'TASK_COMPLETE', content: `Opened ${url42} (and later ${url43})\n` }]] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result!.prUrl).toBe(url42);
  });

  it('in TASK_COMPLETE.md too', async ({ expect }) => {
    const run = await runExec({
      plan: noSummaryPlan,
      scenario: { iterations: [[{ write: 'TASK_COMPLETE.md', content: `# Done\n\nSee ${url43}.\n` }]] },
    });
    expect(run.result!.prUrl).toBe(url43);
  });

  it('the content of a PR_URL file wins over a URL in TASK_COMPLETE', async ({ expect }) => {
    const direct = 'https://github.com/acme/other/pull/7';
    const run = await runExec({
      plan: noSummaryPlan,
      scenario: { iterations: [[{ write: 'PR_URL', content: `${direct}\n` }, { write: 'TASK_COMPLETE', content: `Opened ${url42}` }]] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result!.prUrl).toBe(direct);
  });
});

describe.concurrent('the checkbox, LOOP_COMPLETE', () => {
  it('"- [x] TASK_COMPLETE" checked during the run is a completion claim', async ({ expect }) => {
    const run = await runExec({
      plan: planText({ body: '- [ ] TASK_COMPLETE' }),
      scenario: { iterations: [nothing, [{ summary: true }, { check: true }]] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2 });
    expect(run.result!.signals).toMatchObject([{ iteration: 2, source: 'checkbox' }]);
  });

  it('a box already checked at the start is stale: a warning in result.json, and ignored', async ({ expect }) => {
    const run = await runExec({
      plan: planText({ frontMatter: ['require_summary: false'], body: '- [x] TASK_COMPLETE' }),
      args: ['--max-iterations', '2'],
      scenario: { iterations: [nothing] },
    });
    expect(run.code, describeRun(run)).toBe(3);
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 2, signals: [] });
    expect(run.result!.warnings.some((w: string) => w.includes('TASK_COMPLETE') && w.includes('stale'))).toBe(true);
  });

  it('a LOOP_COMPLETE line is a completion claim; with text around it, it is not', async ({ expect }) => {
    const run = await runExec({
      plan: noSummaryPlan,
      scenario: { iterations: [[{ say: 'not yet LOOP_COMPLETE' }], [{ say: '  LOOP_COMPLETE' }]] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2 });
    expect(run.result!.signals).toMatchObject([{ iteration: 2, name: 'LOOP_COMPLETE', source: 'stdout' }]);
  });

  it('LOOP_COMPLETE goes through the gate like ###PLAN_COMPLETE###', async ({ expect }) => {
    const run = await runExec({ args: ['--max-iterations', '1'], scenario: { iterations: [[{ say: 'LOOP_COMPLETE' }]] } });
    expect(run.code, describeRun(run)).toBe(3);
    expect(eventsOf(run, 'gate')).toMatchObject([{ accepted: false }]);
  });
});

describe.concurrent('the command executor environment', () => {
  it('RALPH_RUN_ID, RALPH_RUN_DIR, RALPH_PLAN, RALPH_SUMMARY, RALPH_ITERATION, RALPH_FRESH_CONTEXT', async ({ expect }) => {
    const run = await runExec({
      scenario: { iterations: [nothing, [{ say: '###BAILOUT:fresh please###' }], nothing, [{ summary: true }, { say: '###PLAN_COMPLETE###' }]] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    const calls = run.calls!;
    expect(calls).toHaveLength(4);
    for (const [i, call] of calls.entries()) {
      expect(call.env).toEqual({
        RALPH_RUN_ID: run.result!.run,
        RALPH_RUN_DIR: run.runDir,
        RALPH_PLAN: run.planPath,
        RALPH_SUMMARY: join(run.work, 'plan.summary.json'),
        RALPH_ITERATION: String(i + 1),
        RALPH_FRESH_CONTEXT: i === 0 || i === 2 ? '1' : '0',
        // One random token for the whole run (it finds the run's processes): the same every call.
        RALPH_RUN_TOKEN: calls[0]!.env.RALPH_RUN_TOKEN,
      });
      expect(call.env.RALPH_RUN_TOKEN).toMatch(/^[0-9a-f]{24}$/);
      expect(call.cwd).toBe(run.work);
    }
  });
});

describe.concurrent('a signal file counts in the iteration in which it appeared or changed', () => {
  it('a TASK_COMPLETE left from a bailout iteration does not count again until it changes', async ({ expect }) => {
    const run = await runExec({
      plan: noSummaryPlan,
      args: ['--signal-grace', '5s'],
      scenario: {
        iterations: [
          [{ write: 'TASK_COMPLETE', content: 'v1' }, { say: '###BAILOUT:not really###' }],
          nothing,
          [{ write: 'TASK_COMPLETE', content: 'v2' }],
        ],
      },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(eventsOf(run, 'decision').map((e) => e.decision.kind)).toEqual(['bailout', 'none', 'complete']);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 3, bailouts: 1 });
  });
});

describe.concurrent('the checkbox after a rejected claim', () => {
  // docs/signals.md#the-plans-checkbox: a checked box is a claim "only if it was not already checked when the run
  // started" — a box checked during the run stays a claim until the gate accepts it.
  it('a box checked in iteration 1 and rejected still claims in iteration 2, once the summary is there', async ({ expect }) => {
    const run = await runExec({
      plan: planText({ body: '- [ ] TASK_COMPLETE' }),
      args: ['--max-iterations', '3'],
      scenario: { iterations: [[{ check: true }], [{ summary: true }], nothing] },
    });
    expect(eventsOf(run, 'gate')[0]).toMatchObject({ iteration: 1, accepted: false });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 2 });
  });
});

describe.concurrent('--cwd', () => {
  it('the agent works in --cwd, the run directory is under it, and --summary stays relative to the current directory', async ({ expect }) => {
    const run = await runExec({
      args: ['--cwd', 'repo', '--summary', 'out/s.json'],
      runsUnder: 'repo',
      files: { 'repo/README.md': 'the repository', 'repo/TASK_COMPLETE': 'stale' },
      scenario: { iterations: [[{ summary: true }, { say: '###PLAN_COMPLETE###' }]] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    const call = run.calls![0]!;
    expect(call.cwd).toBe(join(run.work, 'repo'));
    expect(call.env.RALPH_SUMMARY).toBe(join(run.work, 'out', 's.json'));
    expect(call.env.RALPH_RUN_DIR?.startsWith(join(run.work, 'repo', '.ralph', 'runs'))).toBe(true);
    expect(existsSync(join(run.work, 'repo', 'TASK_COMPLETE'))).toBe(false);
  });
});
