// `ralph exec` through the built CLI: what happens before anything runs (invalid plans, missing
// executors, bad flags), and the shapes of the run's files (docs/files.md) and of --json output.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertBuilt, describeRun, removeTempDirs, runExec, type Step, steps } from './helpers/exec-harness.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

const { complete } = steps;
const STACK_FRAME = /^\s+at .+[(:]\d+/m;

describe.concurrent('before anything runs', () => {
  it('a plan that fails validation: exit 64, every problem listed with file and line, the agent never ran', async ({ expect }) => {
    const plan = ['---', 'max_iterations: 0', 'stream_format: yaml', '---', '# No tasks here', ''].join('\n');
    const run = await runExec({ plan, scenario: { iterations: [complete] } });
    expect(run.code, describeRun(run)).toBe(64);
    expect(run.stderr).toContain('plan.md:2: max_iterations');
    expect(run.stderr).toContain('plan.md:3: stream_format');
    expect(run.stderr).toMatch(/tasks/);
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.calls).toBeUndefined();
    expect(existsSync(join(run.work, '.ralph'))).toBe(false);
  });

  it('a plan file that does not exist: exit 64 naming the file, nothing ran', async ({ expect }) => {
    const run = await runExec({ plan: null, planFile: 'nowhere.md', scenario: { iterations: [complete] } });
    expect(run.code, describeRun(run)).toBe(64);
    expect(run.stderr).toContain('nowhere.md');
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.calls).toBeUndefined();
    expect(existsSync(join(run.work, '.ralph'))).toBe(false);
  });

  it('--executor command without a program: exit 64, nothing ran', async ({ expect }) => {
    const run = await runExec({ command: null, args: ['--executor', 'command'] });
    expect(run.code, describeRun(run)).toBe(64);
    expect(run.stderr).toMatch(/needs a program/);
    expect(existsSync(join(run.work, '.ralph'))).toBe(false);
  });

  it('a missing executor program is found before the first iteration: exit 64, one line, nothing ran', async ({ expect }) => {
    const run = await runExec({ command: ['ralph-test-no-such-program-8d1'] });
    expect(run.code, describeRun(run)).toBe(64);
    expect(run.stderr).toContain('ralph: cannot start "ralph-test-no-such-program-8d1": no such program (is it installed and on PATH?)');
    expect(existsSync(join(run.work, '.ralph'))).toBe(false);
    expect(run.calls).toBeUndefined();
    expect(`${run.stdout}\n${run.stderr}`).not.toMatch(STACK_FRAME);
    expect(run.stderr).not.toMatch(/internal error/);
  });

  it('no executor at all (no --, none in the plan, no ANTHROPIC_API_KEY): exit 64 naming the choices', async ({ expect }) => {
    const run = await runExec({ command: null });
    expect(run.code, describeRun(run)).toBe(64);
    expect(run.stderr).toMatch(/no executor/);
    expect(run.stderr).toMatch(/--/);
    expect(run.stderr).toMatch(/ANTHROPIC_API_KEY/);
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(existsSync(join(run.work, '.ralph'))).toBe(false);
  });

  it.for([
    ['--max-iterations', '0'],
    ['--signal-grace', 'forever'],
    ['--max-cost', '-1'],
    ['--stream-format', 'xml'],
  ])('a bad flag %s %s: exit 64, the agent never ran', async (flag, { expect }) => {
    const run = await runExec({ args: flag, scenario: { iterations: [complete] } });
    expect(run.code, describeRun(run)).toBe(64);
    expect(run.stderr).toContain(flag[0]);
    expect(run.stderr).not.toMatch(STACK_FRAME);
    expect(run.calls).toBeUndefined();
  });
});

describe.concurrent('the run files (docs/files.md)', () => {
  const observations: Step[] = [
    {
      say: '<observation type="bug" severity="high">\n  <title>Off by one</title>\n  <detail>The loop skips the last item.</detail>\n  <file>src/a.ts</file>\n  <action>needs-fix</action>\n</observation>',
    },
    { say: '<observation type="gossip" severity="huge"><title>x</title><detail>y</detail></observation>' },
  ];

  it('result.json, STATUS.json, events.jsonl, findings.jsonl and the transcript have every key', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [[{ say: 'hello from iteration 1' }, ...observations], complete] } });
    expect(run.code, describeRun(run)).toBe(0);

    const result = run.result!;
    for (const key of ['run', 'plan', 'outcome', 'exitCode', 'reason', 'iterations', 'bailouts', 'signals', 'prUrl', 'costUsd', 'tokens', 'startedAt', 'endedAt', 'warnings']) {
      expect(result, `result.json has ${key}`).toHaveProperty(key);
    }
    expect(result).toMatchObject({ plan: 'test', outcome: 'complete', exitCode: 0, iterations: 2, bailouts: 0, prUrl: null, costUsd: null });
    // The harness's plan has no check of its own: said once, nothing else.
    expect(result.warnings).toEqual([expect.stringContaining('the plan has no check: completion will be accepted on the summary alone')]);
    expect(Object.keys(result.tokens).sort()).toEqual(['cacheRead', 'cacheWrite', 'input', 'output']);
    expect(Date.parse(result.endedAt)).toBeGreaterThanOrEqual(Date.parse(result.startedAt));
    expect(run.runDir!.endsWith(join('.ralph', 'runs', result.run))).toBe(true);

    const status = run.status!;
    expect(Object.keys(status).sort()).toEqual(['iteration', 'mode', 'pid', 'plan', 'repo', 'started', 'state', 'task', 'updated'].sort());
    expect(status).toMatchObject({ plan: run.planPath, started: result.startedAt, mode: 'command', iteration: 2 });
    expect(Number.isNaN(Date.parse(status.updated))).toBe(false);

    expect(run.events.length).toBeGreaterThan(0);
    for (const e of run.events) {
      expect(typeof e.type).toBe('string');
      expect(Number.isNaN(Date.parse(e.at))).toBe(false);
    }
    expect(run.events[0]!.type).toBe('run-start');
    expect(run.events.at(-1)).toMatchObject({ type: 'run-end', outcome: 'complete', exitCode: 0 });

    expect(run.findings).toHaveLength(2);
    const [valid, invalid] = run.findings;
    for (const f of run.findings) {
      for (const key of ['run', 'plan', 'iteration', 'at', 'valid', 'type', 'severity', 'title', 'detail', 'file', 'action']) {
        expect(f, `findings.jsonl has ${key}`).toHaveProperty(key);
      }
    }
    expect(valid).toMatchObject({
      run: result.run,
      plan: 'test',
      iteration: 1,
      valid: true,
      type: 'bug',
      severity: 'high',
      title: 'Off by one',
      detail: 'The loop skips the last item.',
      file: 'src/a.ts',
      action: 'needs-fix',
    });
    expect(valid).not.toHaveProperty('raw');
    expect(invalid).toMatchObject({ valid: false, iteration: 1 });
    expect(invalid!.raw).toContain('gossip');
    expect(typeof invalid!.error).toBe('string');

    const { readFileSync } = await import('node:fs');
    expect(readFileSync(join(run.runDir!, 'iterations', '1.log'), 'utf8')).toContain('hello from iteration 1');
  });

  it('--json: every stdout line is one JSON event, run-start first and run-end last', async ({ expect }) => {
    const run = await runExec({ args: ['--json'], scenario: { iterations: [[{ say: 'plain agent text' }, ...complete]] } });
    expect(run.code, describeRun(run)).toBe(0);
    const lines = run.stdout.split('\n').filter((l) => l !== '');
    const events = lines.map((l) => JSON.parse(l) as { type: string });
    expect(events[0]!.type).toBe('run-start');
    expect(events.at(-1)).toMatchObject({ type: 'run-end', outcome: 'complete', exitCode: 0 });
    expect(events.some((e) => e.type === 'output')).toBe(true);
  });
});
