// `ralph exec` with a config file, notification targets and hooks, run as a user would (the
// built CLI) against real receivers on 127.0.0.1 and real hook scripts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { NOTIFY } from '../../src/contract.js';
import { assertBuilt, NO_CHECK_WARNING, otherWarnings, removeTempDirs, runExec, SCRIPTED_AGENT, steps } from '../e2e/helpers/exec-harness.js';
import { flaky, recorder, silent, type Receiver } from './receivers.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);
const receivers: Receiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});
async function receiver(make: () => Promise<Receiver>): Promise<Receiver> {
  const r = await make();
  receivers.push(r);
  return r;
}

const { complete, blockerObservation } = steps;
const blocked = [blockerObservation('No staging access'), { say: '###BLOCKED:need staging credentials###' }];

describe('notifications from ralph exec', () => {
  it('a run that ends blocked posts exactly one blocked and one ended, with the plan, reason and run directory', async () => {
    const r = await receiver(recorder);
    const run = await runExec({
      scenario: { iterations: [blocked] },
      files: { 'ralph.config.yaml': 'notify:\n  - webhook: ${RALPH_TEST_HOOK}\n' },
      env: { RALPH_TEST_HOOK: `${r.url}/hook` },
    });
    expect(run.code).toBe(2);
    const bodies = r.received.map((x) => JSON.parse(x.body));
    expect(bodies.map((b) => b.event)).toEqual(['blocked', 'ended']);
    for (const b of bodies) {
      expect(b).toMatchObject({ version: 1, plan: 'test', planPath: run.planPath, runDir: run.runDir, reason: 'need staging credentials', outcome: 'blocked', exitCode: 2 });
    }
    expect(otherWarnings(run.result?.warnings)).toEqual([]);
  });

  it('a receiver that answers 500 first gets the notification on the retry; no warning', async () => {
    const r = await receiver(() => flaky(1));
    const run = await runExec({ scenario: { iterations: [complete] }, args: ['--notify', `webhook:${r.url}/in`] });
    expect(run.code).toBe(0);
    expect(r.received.map((x) => JSON.parse(x.body).event)).toEqual(['ended', 'ended']);
    expect(otherWarnings(run.result!.warnings)).toEqual([]);
    expect(run.leftovers).toEqual([]);
  });

  it('a receiver that never answers delays the exit by no more than the flush bound, and is a warning without the secret URL', async () => {
    const r = await receiver(silent);
    const secretUrl = `${r.url}/services/T000/B000/very-secret-token`;
    const run = await runExec({
      scenario: { iterations: [[{ say: 'sh-env' }, ...complete]] },
      args: ['--notify', `${r.url}/flag-secret-path`],
      files: { 'ralph.config.yaml': 'notify:\n  - slack: ${RALPH_TEST_SLACK}\n    events: [ended]\n' },
      env: { RALPH_TEST_SLACK: secretUrl },
    });
    expect(run.code).toBe(0);
    const exitedAt = Date.now();
    const endedAt = Date.parse(run.result!.endedAt);
    // The receiver never answers: without the flush bound the process would never exit (the
    // test's timeout). It waited the bound, measured from the moment the result was written.
    expect(exitedAt - endedAt).toBeGreaterThanOrEqual(NOTIFY.flushMs - 500);
    expect(r.received.length).toBe(2);
    const warnings = otherWarnings(run.result!.warnings as string[]);
    expect(warnings).toHaveLength(2);
    for (const w of warnings) expect(w).toMatch(/^notification "ended" to (notify\[0\] slack|webhook) 127\.0\.0\.1:\d+ not delivered: given up/);
    const everything = [JSON.stringify(run.result), JSON.stringify(run.events), run.stdout, run.stderr, readFileSync(join(run.runDir!, 'STATUS.json'), 'utf8')].join('\n');
    expect(everything).not.toContain('very-secret-token');
    expect(everything).not.toContain('flag-secret-path');
    expect(run.events.filter((e) => e.type === 'warning' && /not delivered/.test(e.message))).toHaveLength(2);
    // The warnings come before the line that names the results folder: nothing follows it.
    expect(run.stderr.trimEnd().split('\n').at(-1)).toMatch(/results in /);
    expect(run.leftovers).toEqual([]);
  });

  it("the agent's environment never receives the config's secrets", async () => {
    const r = await receiver(recorder);
    const run = await runExec({
      command: ['sh', '-c', 'env > agent-env.txt; cat > /dev/null; echo working'],
      args: ['--max-iterations', '1'],
      files: { 'ralph.config.yaml': 'notify:\n  - webhook: ${RALPH_TEST_HOOK}\nhooks:\n  on_outcome: \'test -n "$RALPH_TEST_TOKEN" && echo ok > hook-saw-token\'\n'.replace('${RALPH_TEST_HOOK}', '${RALPH_TEST_HOOK}?t=${RALPH_TEST_TOKEN}') },
      env: { RALPH_TEST_HOOK: `${r.url}/x`, RALPH_TEST_TOKEN: 'tok-abcdef-123', UNRELATED_VAR: 'visible' },
    });
    expect(run.code).toBe(3);
    const agentEnv = readFileSync(join(run.work, 'agent-env.txt'), 'utf8');
    expect(agentEnv).toContain('UNRELATED_VAR=visible');
    expect(agentEnv).not.toContain('RALPH_TEST_HOOK');
    expect(agentEnv).not.toContain('RALPH_TEST_TOKEN');
    expect(agentEnv).not.toContain('tok-abcdef-123');
    // The project's own hooks are trusted: they run with ralph's environment.
    expect(readFileSync(join(run.work, 'hook-saw-token'), 'utf8')).toBe('ok\n');
    expect(r.received.map((x) => x.path)).toEqual(['/x?t=tok-abcdef-123']);
  });
});

describe('the config file through the CLI', () => {
  it('--agent NAME runs the command the config file names', async () => {
    const scenario = JSON.stringify({ iterations: [complete] });
    const run = await runExec({
      command: null,
      args: ['--agent', 'scripted'],
      files: {
        'scenario.json': scenario,
        'ralph.config.yaml': `agents:\n  scripted:\n    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(SCRIPTED_AGENT)}, scenario.json, --from-config]\n    stream_format: text\n`,
      },
    });
    expect(run.stderr.split('\n').filter((l) => !l.includes(NO_CHECK_WARNING)).join('\n')).not.toMatch(/warning|error/i);
    expect(run.code).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 1 });
    const calls = readFileSync(join(run.work, 'scenario.json.calls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(calls).toHaveLength(1);
    expect(calls[0].argv).toEqual(['--from-config']);
  });

  it("the config's default agent and defaults apply when flags and plan leave them open", async () => {
    const run = await runExec({
      command: null,
      files: {
        'scenario.json': JSON.stringify({ iterations: [[{ say: 'still going' }]] }),
        'ralph.config.yaml': `agent: scripted\nagents:\n  scripted:\n    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(SCRIPTED_AGENT)}, scenario.json]\ndefaults:\n  max_iterations: 2\n`,
      },
    });
    expect(run.code).toBe(3);
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 2 });
  });

  it('a config error exits 64 with file:line, and nothing runs', async () => {
    const run = await runExec({
      scenario: { iterations: [complete] },
      files: { 'ralph.config.yaml': 'agents:\n  mine:\n    command: [x]\ndefaults:\n  max_iteration: 3\n' },
    });
    expect(run.code).toBe(64);
    expect(run.stderr).toContain('ralph.config.yaml:5: unknown key "max_iteration" in defaults (did you mean "max_iterations"?)');
    expect(run.runDir).toBeUndefined();
    expect(run.calls).toBeUndefined();
  });
});

describe('hooks through the CLI', () => {
  it('an after_iteration hook exiting 3 stops the run after that iteration (exhausted, the hook named); on_outcome sees the result', async () => {
    const run = await runExec({
      scenario: { iterations: [[{ say: 'working' }]] },
      files: {
        'budget.sh': '#!/bin/sh\nif [ "$RALPH_ITERATION" -ge 2 ]; then echo "team budget spent"; exit 3; fi\n',
        'ralph.config.yaml': "hooks:\n  after_iteration: sh budget.sh\n  on_outcome: 'cat > outcome.json'\n  before_iteration: 'echo $RALPH_ITERATION >> before.txt'\n",
      },
    });
    expect(run.code).toBe(3);
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 2, reason: 'stopped by the after_iteration hook (exit 3): team budget spent' });
    expect(readFileSync(join(run.work, 'before.txt'), 'utf8')).toBe('1\n2\n');
    const seen = JSON.parse(readFileSync(join(run.work, 'outcome.json'), 'utf8'));
    expect(seen).toMatchObject({ version: 1, hook: 'on_outcome', outcome: 'exhausted', runDir: run.runDir, result: { iterations: 2 } });
    expect(run.leftovers).toEqual([]);
  });

  it('a hook past its timeout is stopped with everything it started, and the run goes on', async () => {
    const run = await runExec({
      scenario: { iterations: [complete] },
      files: {
        'slow.sh': '#!/bin/sh\nsh -c "sleep 3600; echo late" &\nsleep 3600\n',
        'ralph.config.yaml': 'hooks:\n  before_iteration:\n    - run: sh "$PWD/slow.sh"\n      timeout: 500ms\n',
      },
    });
    expect(run.code).toBe(0);
    expect(otherWarnings(run.result!.warnings)).toEqual([expect.stringMatching(/^before_iteration hook was stopped after 500ms \(its timeout\); stopped \d+ processes: .*sleep \(pid \d+\)/)]);
    expect(run.leftovers).toEqual([]);
  });

  it("a hook's failure is a warning in the events and the result, never the run's failure", async () => {
    const run = await runExec({
      scenario: { iterations: [complete] },
      files: { 'ralph.config.yaml': "hooks:\n  before_iteration: 'echo nope >&2; exit 9'\n  on_outcome: 'exit 4'\n" },
    });
    expect(run.code).toBe(0);
    expect(otherWarnings(run.result!.warnings)).toEqual(['before_iteration hook exited 9: nope', 'on_outcome hook exited 4']);
    expect(otherWarnings(run.events.filter((e) => e.type === 'warning').map((e) => e.message))).toEqual(['before_iteration hook exited 9: nope', 'on_outcome hook exited 4']);
  });
});
