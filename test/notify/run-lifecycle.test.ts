// One run's lifecycle with real hook scripts and a real receiver: hooks get the facts in env and
// JSON on stdin, a failure or timeout is a warning, after_iteration's stop code stops, the wait
// events become waiting/resumed notifications.
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunBus } from '../../src/loop/bus.js';
import type { RunFacts } from '../../src/loop/lifecycle.js';
import type { RunResult } from '../../src/loop/types.js';
import { createRunLifecycle } from '../../src/notify/run-lifecycle.js';
import { makeRedactor } from '../../src/notify/redact.js';
import { targetFromFlag } from '../../src/notify/targets.js';
import { recorder, type Receiver } from './receivers.js';

const dirs: string[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-hooks-'));
  dirs.push(dir);
  const facts: RunFacts = { runId: 'r1', runDir: join(dir, '.ralph/runs/r1'), plan: 'demo', planPath: join(dir, 'plan.md'), cwd: dir, mode: 'new' };
  const bus = new RunBus();
  const warnings: string[] = [];
  bus.on('event', (e) => {
    if (e.type === 'warning') warnings.push(e.message);
  });
  return { dir, facts, bus, warnings };
}

/** Live processes whose command line is `sleep <tag>` (a unique duration). */
function sleepers(tag: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      if (stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z') continue;
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') === `sleep\0${tag}\0`) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

function script(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const result: RunResult = {
  run: 'r1',
  plan: 'demo',
  outcome: 'blocked',
  exitCode: 2,
  reason: 'needs a key',
  iterations: 2,
  bailouts: 0,
  signals: [],
  prUrl: null,
  costUsd: null,
  tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  startedAt: '2026-01-01T00:00:00.000Z',
  endedAt: '2026-01-01T00:01:00.000Z',
  warnings: [],
};

describe('hooks', () => {
  it('run in the working directory with the facts in env and JSON on stdin', async () => {
    const { dir, facts, bus, warnings } = setup();
    const record = script(dir, 'record.sh', 'cat > "stdin-$RALPH_HOOK.json"; env | grep ^RALPH_ | sort > "env-$RALPH_HOOK.txt"; pwd > "pwd-$RALPH_HOOK.txt"');
    const life = createRunLifecycle({ hooks: { before_iteration: [{ run: record }], after_iteration: [{ run: record }], on_outcome: [{ run: record }] }, targets: [], redact: (s) => s })(facts, bus);
    await life.beforeIteration(1);
    expect(await life.afterIteration(1, 'none')).toBeUndefined();
    await life.end(result);
    expect(warnings).toEqual([]);
    expect(readFileSync(join(dir, 'pwd-before_iteration.txt'), 'utf8').trim()).toBe(dir);
    expect(JSON.parse(readFileSync(join(dir, 'stdin-before_iteration.json'), 'utf8'))).toMatchObject({ version: 1, hook: 'before_iteration', iteration: 1, runId: 'r1', plan: 'demo' });
    expect(JSON.parse(readFileSync(join(dir, 'stdin-after_iteration.json'), 'utf8'))).toMatchObject({ hook: 'after_iteration', iteration: 1, decision: 'none' });
    expect(JSON.parse(readFileSync(join(dir, 'stdin-on_outcome.json'), 'utf8'))).toMatchObject({ hook: 'on_outcome', outcome: 'blocked', result: { reason: 'needs a key' } });
    const env = readFileSync(join(dir, 'env-on_outcome.txt'), 'utf8');
    expect(env).toContain('RALPH_OUTCOME=blocked\n');
    expect(env).toContain('RALPH_EXIT_CODE=2\n');
    expect(env).toContain(`RALPH_RUN_DIR=${facts.runDir}\n`);
    expect(readFileSync(join(dir, 'env-after_iteration.txt'), 'utf8')).toContain('RALPH_ITERATION=1\n');
  });

  it('a failing hook is a warning (secrets redacted), a slow one is stopped at its timeout', async () => {
    const { dir, facts, bus, warnings } = setup();
    const fails = script(dir, 'fails.sh', 'echo "bad token tok-SECRET-1" >&2; exit 5');
    const slow = script(dir, 'slow.sh', 'sleep 3600');
    const life = createRunLifecycle({ hooks: { before_iteration: [{ run: fails }, { run: slow, timeoutMs: 300 }] }, targets: [], redact: makeRedactor(['tok-SECRET-1']) })(facts, bus);
    await life.beforeIteration(1);
    expect(warnings[0]).toBe('before_iteration hook #1 exited 5: bad token [secret]');
    expect(warnings[1]).toMatch(/^before_iteration hook #2 was stopped after 300ms \(its timeout\); stopped 3 processes: sh \(pid \d+\), slow\.sh \(pid \d+\), sleep \(pid \d+\)$/);
    expect(warnings).toHaveLength(2);
  });

  // docs/hostile.md "Hooks and notification commands": a daemon holding the hook's output pipe
  // neither holds ralph nor outlives the hook; what was stopped is said.
  it('a hook that starts a setsid daemon: at its timeout the whole tree is stopped, daemon included, without waiting for the pipe it holds', async () => {
    const { dir, facts, bus, warnings } = setup();
    const tag = `${60 + Math.random()}`.slice(0, 12);
    const hook = script(dir, 'daemon.sh', `setsid sleep ${tag} &\nsleep ${tag}`);
    const life = createRunLifecycle({ hooks: { before_iteration: [{ run: hook, timeoutMs: 300 }] }, targets: [], redact: (s) => s })(facts, bus);
    await life.beforeIteration(1);
    expect(sleepers(tag)).toEqual([]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^before_iteration hook was stopped after 300ms \(its timeout\); stopped \d processes: .*sleep \(pid \d+\), .*sleep \(pid \d+\)/);
  });

  it('an on_outcome hook that exits at once but leaves a daemon holding its output: it ends, the daemon is stopped and reported', async () => {
    const { dir, facts, bus, warnings } = setup();
    const tag = `${60 + Math.random()}`.slice(0, 12);
    const hook = script(dir, 'leave.sh', `setsid sleep ${tag} &\necho started`);
    const life = createRunLifecycle({ hooks: { on_outcome: [{ run: hook, timeoutMs: 60_000 }] }, targets: [], redact: (s) => s })(facts, bus);
    await life.end(result);
    expect(sleepers(tag)).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/^on_outcome hook left processes running when it exited; stopped 1 process: sleep \(pid \d+\)$/)]);
  });

  it('an interrupted run stops its before_iteration hook at once, daemon included', async () => {
    const { dir, facts, bus, warnings } = setup();
    const tag = `${60 + Math.random()}`.slice(0, 12);
    const hook = script(dir, 'daemon.sh', `setsid sleep ${tag} &\nsleep ${tag}`);
    const interrupt = new AbortController();
    const life = createRunLifecycle({ hooks: { before_iteration: [{ run: hook, timeoutMs: 60_000 }] }, targets: [], redact: (s) => s, signal: interrupt.signal })(facts, bus);
    const running = life.beforeIteration(1);
    while (sleepers(tag).length < 2) await new Promise((r) => setTimeout(r, 20));
    interrupt.abort();
    await running;
    expect(sleepers(tag)).toEqual([]);
    expect(warnings).toEqual([expect.stringMatching(/^before_iteration hook was stopped: the run was interrupted; stopped \d processes: /)]);
  });

  it('an interrupted run skips its iteration hooks but still runs on_outcome, which reports the interruption', async () => {
    const { dir, facts, bus, warnings } = setup();
    const record = script(dir, 'record.sh', 'echo "$RALPH_HOOK" >> hooks.txt');
    const interrupt = new AbortController();
    interrupt.abort();
    const life = createRunLifecycle({ hooks: { before_iteration: [{ run: record }], on_outcome: [{ run: record }] }, targets: [], redact: (s) => s, signal: interrupt.signal })(facts, bus);
    await life.beforeIteration(1);
    await life.end(result);
    expect(readFileSync(join(dir, 'hooks.txt'), 'utf8')).toBe('on_outcome\n');
    expect(warnings).toEqual([]);
  });

  it('an after_iteration hook exiting 3 asks the run to stop, with its last line as the reason', async () => {
    const { dir, facts, bus, warnings } = setup();
    const budget = script(dir, 'budget.sh', 'echo "checking"; echo "budget of \\$40 spent"; exit 3');
    const life = createRunLifecycle({ hooks: { after_iteration: [{ run: budget }] }, targets: [], redact: (s) => s })(facts, bus);
    expect(await life.afterIteration(2, 'none')).toBe('stopped by the after_iteration hook (exit 3): budget of $40 spent');
    expect(warnings).toEqual([]);
    // The same code from another hook is just a failure.
    const other = createRunLifecycle({ hooks: { before_iteration: [{ run: budget }] }, targets: [], redact: (s) => s })(facts, bus);
    await other.beforeIteration(1);
    expect(warnings).toEqual(['before_iteration hook exited 3: budget of $40 spent']);
  });
});

describe('notifications of a run', () => {
  it('wait_start and wait_end on the bus become waiting and resumed; run-end blocked becomes blocked then ended', async () => {
    const { facts, bus } = setup();
    const r = await recorder();
    receivers.push(r);
    const life = createRunLifecycle({ hooks: {}, targets: [targetFromFlag(r.url, 0)], redact: (s) => s })(facts, bus);
    const until = '2026-01-01T05:00:00.000Z';
    bus.emitEvent({ type: 'wait_start', iteration: 3, kind: 'usage', until, reason: 'five-hour limit', basis: 'reset' });
    bus.emitEvent({ type: 'wait_end', iteration: 3, kind: 'usage', until, reason: 'five-hour limit', waitedMs: 10, end: 'done' });
    // A second wait cut short by Ctrl+C: waiting, but no resumed (the run's end follows).
    bus.emitEvent({ type: 'wait_start', iteration: 4, kind: 'rate', until, reason: 'rpm', basis: 'retry-after' });
    bus.emitEvent({ type: 'wait_end', iteration: 4, kind: 'rate', until, reason: 'rpm', waitedMs: 10, end: 'aborted' });
    bus.emitEvent({ type: 'run-end', outcome: 'blocked', exitCode: 2, reason: 'needs a key', result });
    await life.end(result);
    const bodies = r.received.map((x) => JSON.parse(x.body));
    expect(bodies.map((b) => b.event)).toEqual(['waiting', 'resumed', 'waiting', 'blocked', 'ended']);
    expect(bodies[0]).toMatchObject({ plan: 'demo', runDir: facts.runDir, wait: { iteration: 3, kind: 'usage', until, reason: 'five-hour limit' } });
    expect(bodies[0].summary).toBe(`ralph: plan demo is waiting for a usage limit until ${until}: five-hour limit`);
    expect(bodies[4]).toMatchObject({ version: 1, outcome: 'blocked', exitCode: 2, reason: 'needs a key', runDir: facts.runDir, iterations: 2 });
  });
});
