// What bounds an unattended run (docs/loop.md#limits): the error loop, --iteration-timeout, --max-runtime
// and --max-cost, their front-matter equivalents, and flags over front matter. Built CLI only.
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/contract.js';
import { alive, claude, ralph, type Scenario, type Step, Workspace, trackWorkspaces } from './longrun-helpers/index.js';

const workspace = trackWorkspaces();

// These agents decide nothing and change nothing on purpose: the stall breaker (which would end
// them no_progress after 3 iterations) is off so the limit under test is what ends the run.
const exec = (ws: Workspace, flags: string[], command: string[]) => ralph(['exec', ws.plan, '--quiet', '--max-stalls', '0', ...flags, '--', ...command], { cwd: ws.cwd });

/** A tool call that fails; `n` changes only numbers and paths in the error text. */
const failingCall = (n: number): Step[] => [
  claude.toolUse(`toolu_${n}`, `cat src/module${n}.ts`),
  claude.toolResult(`toolu_${n}`, `Error: ENOENT: no such file or directory, open '/tmp/work${n}/src/module${n * 7}.ts' (attempt ${n}, line ${n * 13})`, true),
];

describe('the error loop', () => {
  it('the same tool error three times, differing only in numbers and paths → off_rails with that reason', async () => {
    const ws = workspace();
    const cmd = ws.agent({ iterations: [[claude.init('s-1'), ...failingCall(1), ...failingCall(2), ...failingCall(3), { hang: true }]] });
    // The silence timeout is only a backstop so that a missed loop fails fast, by its reason.
    const ran = await exec(ws, ['--stream-format', 'claude-json', '--silence-timeout', '6s'], cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.off_rails);
    const result = ws.result();
    expect(result.outcome).toBe('off_rails');
    expect(result.reason).toMatch(/same tool error 3 times/);
    expect(result.reason).toMatch(/ENOENT/);
    // Stopped for the loop (the reason above), not for silence — and the hanging agent is gone.
    expect(ws.events().filter((e) => e.type === 'stop').map((e) => e.cause)).not.toContain('silence');
    expect(alive(ws.pids()[0]!.pid)).toBe(false);
  });

  it('three different tool errors are not a loop', async () => {
    const ws = workspace();
    const errors = ['Error: permission denied', 'Error: command timed out', 'SyntaxError: unexpected token'];
    const steps = errors.flatMap((e, i) => [claude.toolUse(`toolu_${i}`, 'make'), claude.toolResult(`toolu_${i}`, e, true)]);
    const cmd = ws.agent({ iterations: [[claude.init('s-1'), ...steps, { summary: true }, claude.text('###PLAN_COMPLETE###'), claude.result('s-1', 0.01)]] });
    const ran = await exec(ws, ['--stream-format', 'claude-json'], cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    expect(ws.result().outcome).toBe('complete');
  });
});

describe('--iteration-timeout', () => {
  it('stops an iteration that runs too long; it counts as an iteration without a decision', async () => {
    const ws = workspace();
    const cmd = ws.agent({ iterations: [[{ heartbeat: { every: 100, for: 600_000 } }]] });
    const ran = await exec(ws, ['--iteration-timeout', '1s', '--max-iterations', '3'], cmd);

    // Three timed-out iterations are not three failures of the executor: the run is exhausted.
    expect(ran.code, ran.stderr).toBe(EXIT_CODES.exhausted);
    const result = ws.result();
    expect(result.outcome).toBe('exhausted');
    expect(result.reason).toMatch(/^max_iterations reached/);
    expect(result.iterations).toBe(3);
    const ends = ws.events().filter((e) => e.type === 'iteration-end');
    expect(ends.map((e) => e.decision)).toEqual(['none', 'none', 'none']);
    // Each was stopped by its timeout (the agent would go on for ten minutes).
    expect(ws.events().filter((e) => e.type === 'stop').map((e) => e.cause)).toEqual(['iteration_timeout', 'iteration_timeout', 'iteration_timeout']);
    // "none" continues in the same context.
    expect(ws.calls().map((c) => c.fresh)).toEqual(['1', '0', '0']);
    expect(ws.pids().every((p) => !alive(p.pid))).toBe(true);
  });
});

describe('--max-runtime', () => {
  // Busy for 3.5 s, then done: only a runtime limit stops it earlier.
  const busy = (): Scenario => ({
    iterations: [[{ heartbeat: { every: 100, for: 3_500 } }, { summary: true }, { say: '###PLAN_COMPLETE###' }]],
  });

  it('ends the run exhausted (3) with reason "max_runtime reached", mid-iteration', async () => {
    const ws = workspace();
    const ran = await exec(ws, ['--max-runtime', '1s'], ws.agent(busy()));

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.exhausted);
    const result = ws.result();
    expect(result.outcome).toBe('exhausted');
    expect(result.reason).toMatch(/^max_runtime reached/);
    expect(result.iterations).toBe(1);
    expect(alive(ws.pids()[0]!.pid)).toBe(false);
  });

  it('max_runtime in the front matter works the same', async () => {
    const ws = workspace({ frontMatter: ['max_runtime: 1s'] });
    const ran = await exec(ws, [], ws.agent(busy()));

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.exhausted);
    expect(ws.result().reason).toMatch(/^max_runtime reached/);
  });

  it('--max-runtime overrides the front matter', async () => {
    const ws = workspace({ frontMatter: ['max_runtime: 1s'] });
    const ran = await exec(ws, ['--max-runtime', '1h'], ws.agent(busy()));

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    expect(ws.result().outcome).toBe('complete');
  });
});

describe('--max-cost', () => {
  // Each iteration reports $0.02 and decides nothing: 0.02, 0.04, 0.06 ≥ 0.05 → stop after iteration 3.
  const spender = { iterations: [[claude.init('s-cost'), claude.text('working on it'), claude.result('s-cost', 0.02)]] };

  it('stops the run exhausted after exactly the iteration that reached the limit', async () => {
    const ws = workspace();
    const ran = await exec(ws, ['--stream-format', 'claude-json', '--max-cost', '0.05'], ws.agent(spender));

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.exhausted);
    const result = ws.result();
    expect(result.outcome).toBe('exhausted');
    expect(result.reason).toMatch(/^max_cost reached/);
    expect(result.iterations).toBe(3);
    expect(ws.calls()).toHaveLength(3);
    expect(result.costUsd).toBeCloseTo(0.06, 10);
    expect(result.tokens.input).toBe(300);
  });

  it('max_cost_usd in the front matter works the same', async () => {
    const ws = workspace({ frontMatter: ['max_cost_usd: 0.05'] });
    const ran = await exec(ws, ['--stream-format', 'claude-json'], ws.agent(spender));

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.exhausted);
    expect(ws.result().iterations).toBe(3);
    expect(ws.result().reason).toMatch(/^max_cost reached/);
  });

  it('--max-cost overrides the front matter', async () => {
    const ws = workspace({ frontMatter: ['max_cost_usd: 0.01'] });
    const ran = await exec(ws, ['--stream-format', 'claude-json', '--max-cost', '0.05'], ws.agent(spender));

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.exhausted);
    expect(ws.result().iterations).toBe(3);
  });
});
