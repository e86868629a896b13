// Off the rails (docs/loop.md#off-the-rails) through the built CLI: a silent agent is stopped with its whole
// process group, a chatty one is not, and silence after real work is recovered.
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/contract.js';
import { alive, ralph, Workspace, trackWorkspaces } from './longrun-helpers/index.js';

const workspace = trackWorkspaces();

const exec = (ws: Workspace, flags: string[], command: string[]) => ralph(['exec', ws.plan, ...flags, '--', ...command], { cwd: ws.cwd });

describe('a silent agent', () => {
  it('is off the rails: exit 4, outcome off_rails, its process group stopped, one quarter-time warning', async () => {
    const ws = workspace();
    const cmd = ws.agent({ longrun: { child: true }, iterations: [[{ say: 'thinking…' }, { hang: true }]] });
    // 3 s, so the quarter-time mark (750 ms) falls after the agent's first line even on a slow,
    // loaded start (a silent start would rightly get its own warning).
    const ran = await exec(ws, ['--silence-timeout', '3s', '--quiet'], cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.off_rails);
    const result = ws.result();
    expect(result.outcome).toBe('off_rails');
    expect(result.exitCode).toBe(EXIT_CODES.off_rails);
    expect(result.iterations).toBe(1);
    expect(result.reason).toMatch(/no output/);
    const [agent] = ws.pids();
    expect(agent!.child).not.toBeNull();
    expect(alive(agent!.pid)).toBe(false);
    expect(alive(agent!.child!)).toBe(false);
    const silences = ws.events().filter((e) => e.type === 'silence');
    expect(silences, JSON.stringify(ws.events())).toHaveLength(1);
    expect(silences[0]).toMatchObject({ iteration: 1, timeoutMs: 3_000 });
    expect(silences[0]!.silentMs as number).toBeGreaterThanOrEqual(750);
    expect(silences[0]!.silentMs as number).toBeLessThan(3_000);
  });

  it('that ignores TERM is killed after the 5 s grace, grandchild included', async () => {
    const ws = workspace();
    const cmd = ws.agent({ longrun: { child: 'term-proof' }, iterations: [[{ ignoreTerm: true }, { say: 'stubborn' }, { hang: true }]] });
    const ran = await exec(ws, ['--silence-timeout', '1s', '--quiet'], cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.off_rails);
    expect(ws.result().outcome).toBe('off_rails');
    // 1 s of silence, then TERM, then KILL no sooner than 5 s later.
    expect(ran.ms).toBeGreaterThanOrEqual(6_000);
    const [agent] = ws.pids();
    expect(alive(agent!.pid)).toBe(false);
    expect(alive(agent!.child!)).toBe(false);
  });
});

describe('an agent that only prints heartbeats', () => {
  it('is not off the rails, however long it runs past the silence timeout', async () => {
    const ws = workspace();
    const cmd = ws.agent({
      iterations: [[{ heartbeat: { every: 100, for: 2_500 } }, { summary: true }, { say: '###PLAN_COMPLETE###' }]],
    });
    const ran = await exec(ws, ['--silence-timeout', '1s', '--quiet'], cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    expect(ws.result().outcome).toBe('complete');
    expect(ws.result().iterations).toBe(1);
    // It ran well past the timeout; a quarter-time note about a slow start is fine, stopping it is not.
    expect(ran.ms).toBeGreaterThan(2_500);
    expect(ws.events().filter((e) => e.type === 'silence').every((e) => (e.silentMs as number) < 1_000)).toBe(true);
  });
});

describe('an agent that writes only to stderr', () => {
  it('is not silent: stderr is output too', async () => {
    const ws = workspace();
    const chatter = Array.from({ length: 8 }, (_, i) => [{ stderr: `compiling ${i}` }, { sleep: 300 }]).flat();
    const cmd = ws.agent({ iterations: [[...chatter, { summary: true }, { stderr: '###PLAN_COMPLETE###' }]] });
    const ran = await exec(ws, ['--silence-timeout', '1s', '--quiet'], cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    expect(ran.ms).toBeGreaterThan(2_400);
    expect(ws.result().outcome).toBe('complete');
  });
});

describe('recovery from silence', () => {
  it('a TASK_COMPLETE file and a valid summary before the silence: complete, with a warning', async () => {
    const ws = workspace();
    const cmd = ws.agent({
      iterations: [[{ summary: true }, { write: 'TASK_COMPLETE', content: 'done\n' }, { say: 'wrote it' }, { hang: true }]],
    });
    const ran = await exec(ws, ['--silence-timeout', '1s', '--quiet'], cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    const result = ws.result();
    expect(result.outcome).toBe('complete');
    expect(result.warnings.some((w) => /silence/i.test(w) && /TASK_COMPLETE/.test(w))).toBe(true);
    expect(alive(ws.pids()[0]!.pid)).toBe(false);
  });

  it('a commit and a valid summary before the silence: complete, with a warning in result.json', async () => {
    const ws = workspace({ git: true });
    const cmd = ws.agent({
      iterations: [[{ write: 'feature.txt', content: 'x\n' }, { summary: true }, { commit: 'add feature' }, { say: 'committed' }, { hang: true }]],
    });
    const ran = await exec(ws, ['--silence-timeout', '1s', '--quiet'], cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    const result = ws.result();
    expect(result.outcome).toBe('complete');
    expect(result.warnings.some((w) => /silence/i.test(w) && /commit/.test(w))).toBe(true);
  });

  it('a commit without a summary: off_rails, the recovery claim is rejected', async () => {
    const ws = workspace({ git: true });
    const cmd = ws.agent({
      iterations: [[{ write: 'feature.txt', content: 'x\n' }, { commit: 'add feature' }, { say: 'committed' }, { hang: true }]],
    });
    const ran = await exec(ws, ['--silence-timeout', '1s', '--quiet'], cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.off_rails);
    const result = ws.result();
    expect(result.outcome).toBe('off_rails');
    expect(result.iterations).toBe(1);
    expect(ws.calls()).toHaveLength(1);
  });

  it('silence with neither a file nor a commit in a git repository: off_rails', async () => {
    const ws = workspace({ git: true });
    const cmd = ws.agent({ iterations: [[{ summary: true }, { say: 'summary only' }, { hang: true }]] });
    const ran = await exec(ws, ['--silence-timeout', '1s', '--quiet'], cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.off_rails);
    expect(ws.result().reason).toMatch(/no completion file and no commits/);
  });
});
