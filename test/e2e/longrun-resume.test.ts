// Interrupt and resume (docs/loop.md#interrupts, docs/loop.md#resume) through the built CLI: SIGINT, a second SIGINT, SIGKILL with
// an orphaned agent, signal files of the interrupted iteration, and stop requests.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, RUN_FILES, SIGNAL_FILES } from '../../src/contract.js';
import { alive, claude, ralph, startRalph, waitFor, Workspace, trackWorkspaces } from './longrun-helpers/index.js';

const workspace = trackWorkspaces();

const start = (ws: Workspace, flags: string[], command: string[]) => startRalph(['exec', ws.plan, '--quiet', ...flags, '--', ...command], { cwd: ws.cwd });
const resume = (ws: Workspace, flags: string[], command: string[]) => ralph(['exec', ws.plan, '--quiet', '--resume', 'latest', ...flags, '--', ...command], { cwd: ws.cwd });

/** The raw output of iteration n so far. */
function transcript(ws: Workspace, n: number): string {
  const dirs = ws.runDirs();
  if (dirs.length !== 1) return '';
  const path = join(dirs[0]!, RUN_FILES.iterations, `${n}.log`);
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

describe('SIGINT mid-iteration, then --resume latest', () => {
  it('exits 130 with a whole interrupted result, and the resumed run carries every counter on', async () => {
    const ws = workspace();
    const cmd = ws.agent({
      iterations: [
        [claude.init('s-1'), claude.text('###BAILOUT:context_full###'), claude.result('s-1', 0.02)],
        [claude.init('s-2'), claude.text('working on it'), claude.result('s-2', 0.02), { say: 'still going' }, { hang: true }],
        [claude.init('s-3'), { summary: true }, claude.text('###PLAN_COMPLETE###'), claude.result('s-3', 0.02)],
      ],
    });
    const flags = ['--stream-format', 'claude-json'];
    const run = start(ws, flags, cmd);
    // Interrupt once iteration 2 has reported its cost, while its agent still runs.
    await waitFor(() => transcript(ws, 2).includes('still going'), 'iteration 2 to be under way');
    run.child.kill('SIGINT');
    const first = await run.done;

    expect(first.code, first.stderr).toBe(EXIT_CODES.interrupted);
    const interrupted = ws.result();
    expect(interrupted).toMatchObject({ outcome: 'interrupted', exitCode: EXIT_CODES.interrupted, iterations: 2, bailouts: 1 });
    expect(interrupted.costUsd).toBeCloseTo(0.04, 10);
    expect(ws.pids().map((p) => alive(p.pid))).toEqual([false, false]);
    expect(ws.tmpFiles()).toEqual([]);

    const second = await resume(ws, flags, cmd);
    expect(second.code, second.stderr).toBe(EXIT_CODES.complete);
    const done = ws.result();
    expect(done.run).toBe(interrupted.run);
    expect(done).toMatchObject({ outcome: 'complete', iterations: 3, bailouts: 1 });
    expect(done.costUsd).toBeCloseTo(0.06, 10);
    expect(done.startedAt).toBe(interrupted.startedAt);

    const calls = ws.calls();
    expect(calls.map((c) => c.iteration)).toEqual([1, 2, 3]);
    expect(new Set(calls.map((c) => c.env.RALPH_RUN_ID))).toEqual(new Set([interrupted.run]));
    // The iteration after the interrupted one starts in a fresh context: no session carried over.
    expect(calls[2]!.fresh).toBe('1');
    expect(calls[2]!.argv).not.toContain('--resume');
    // One events.jsonl for the whole run, appended to by the resumed process.
    const events = ws.events();
    expect(events.filter((e) => e.type === 'run-start').map((e) => e.mode)).toEqual(['new', 'resume']);
    expect(events.filter((e) => e.type === 'iteration-start').map((e) => e.iteration)).toEqual([1, 2, 3]);
    expect(events.find((e) => e.type === 'iteration-start' && e.iteration === 3)).toMatchObject({ fresh: true, prompt: 'resume' });
    expect(events.filter((e) => e.type === 'run-end').map((e) => e.outcome)).toEqual(['interrupted', 'complete']);
    expect(ws.tmpFiles()).toEqual([]);
  });

  it('SIGTERM is an interrupt too: 130, outcome interrupted, the agent stopped', async () => {
    const ws = workspace();
    const cmd = ws.agent({ iterations: [[{ say: 'working' }, { hang: true }]] });
    const run = start(ws, [], cmd);
    await waitFor(() => transcript(ws, 1).includes('working'), 'iteration 1 to be under way');
    run.child.kill('SIGTERM');
    const ran = await run.done;

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.interrupted);
    expect(ws.result()).toMatchObject({ outcome: 'interrupted', exitCode: EXIT_CODES.interrupted, iterations: 1 });
    expect(alive(ws.pids()[0]!.pid)).toBe(false);
    expect(ws.tmpFiles()).toEqual([]);
  });

  it('a signal file written during the interrupted iteration is weighed first: complete without a new iteration', async () => {
    const ws = workspace();
    const cmd = ws.agent({
      iterations: [[{ summary: true }, { write: SIGNAL_FILES.taskComplete, content: 'all done\n' }, { say: 'written' }, { hang: true }]],
    });
    const run = start(ws, [], cmd);
    await waitFor(() => transcript(ws, 1).includes('written'), 'the agent to write TASK_COMPLETE');
    run.child.kill('SIGINT');
    const first = await run.done;
    expect(first.code, first.stderr).toBe(EXIT_CODES.interrupted);
    expect(existsSync(join(ws.cwd, SIGNAL_FILES.taskComplete))).toBe(true);

    const second = await resume(ws, [], cmd);
    expect(second.code, second.stderr).toBe(EXIT_CODES.complete);
    const result = ws.result();
    expect(result.outcome).toBe('complete');
    expect(result.iterations).toBe(1);
    expect(ws.calls()).toHaveLength(1);
    expect(result.signals).toContainEqual(expect.objectContaining({ iteration: 1, name: SIGNAL_FILES.taskComplete }));
  });

  it('a second SIGINT exits at once with 130 and a whole result.json, killing an agent that ignores TERM', async () => {
    const ws = workspace();
    const cmd = ws.agent({ longrun: { child: 'term-proof' }, iterations: [[{ ignoreTerm: true }, { say: 'stubborn' }, { hang: true }]] });
    const run = start(ws, [], cmd);
    await waitFor(() => transcript(ws, 1).includes('stubborn'), 'the agent to start');
    run.child.kill('SIGINT');
    await waitFor(() => run.stderr().includes('SIGINT'), 'ralph to acknowledge the first SIGINT');
    run.child.kill('SIGINT');
    const ran = await run.done;

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.interrupted);
    const result = ws.result();
    expect(result).toMatchObject({ outcome: 'interrupted', exitCode: EXIT_CODES.interrupted, iterations: 1 });
    // Stopped at once by the second SIGINT, not after the 5 s TERM→KILL grace the first one started.
    expect(result.reason).toMatch(/^interrupted twice: stopped at once/);
    // The last thing on the terminal is the run's last line, whole and on its own line.
    expect(ran.stderr.endsWith(`\nralph: run interrupted (exit 130): interrupted twice: stopped at once; resume with: ralph exec plan.md --resume ${result.run}\n`), ran.stderr.slice(-400)).toBe(true);
    const [agent] = ws.pids();
    await waitFor(() => !alive(agent!.pid) && !alive(agent!.child!), 'the agent and its grandchild to be gone');
    expect(ws.tmpFiles()).toEqual([]);
  });
});

describe('SIGKILL to ralph mid-iteration', () => {
  it('leaves the agent running; --resume latest stops that orphan first, then continues', async () => {
    const ws = workspace();
    const cmd = ws.agent({
      iterations: [[{ say: 'working' }, { hang: true }], [{ summary: true }, { say: '###PLAN_COMPLETE###' }]],
    });
    const run = start(ws, [], cmd);
    await waitFor(() => transcript(ws, 1).includes('working'), 'iteration 1 to be under way');
    run.child.kill('SIGKILL');
    const killed = await run.done;
    expect(killed.signal).toBe('SIGKILL');
    const orphan = ws.pids()[0]!.pid;
    expect(alive(orphan)).toBe(true);

    const resumed = await resume(ws, [], cmd);
    expect(resumed.code, resumed.stderr).toBe(EXIT_CODES.complete);
    expect(alive(orphan)).toBe(false);
    const result = ws.result();
    expect(result).toMatchObject({ outcome: 'complete', iterations: 2 });
    // Stopped before the next iteration started.
    const events = ws.events();
    const stoppedAt = events.findIndex((e) => e.type === 'warning' && /process\(es\) of the run were still running and were stopped/.test(String(e.message)));
    const iteration2At = events.findIndex((e) => e.type === 'iteration-start' && e.iteration === 2);
    expect(stoppedAt).toBeGreaterThan(-1);
    expect(stoppedAt).toBeLessThan(iteration2At);
    expect(ws.calls().map((c) => c.env.RALPH_RUN_ID)).toEqual([result.run, result.run]);
  });
});

describe('resuming a run that ended complete', () => {
  it('is a usage error (64) that says why, without a stack trace', async () => {
    const ws = workspace();
    const cmd = ws.agent({ iterations: [[{ summary: true }, { say: '###PLAN_COMPLETE###' }]] });
    const first = await start(ws, [], cmd).done;
    expect(first.code, first.stderr).toBe(EXIT_CODES.complete);

    const again = await resume(ws, [], cmd);
    expect(again.code).toBe(EXIT_CODES.usage);
    expect(again.stderr).toMatch(/complete/);
    expect(again.stderr).not.toMatch(/\n\s+at /);
    expect(ws.calls()).toHaveLength(1);
  });
});

describe('stop requests', () => {
  // Iteration 1 is busy until the test has asked for the stop, and decides nothing; iteration 2
  // completes. (It once was busy for 1.5 s, which a loaded machine's `ralph stop` outlasted.)
  const scenario = {
    iterations: [[{ say: 'busy' }, { waitFile: 'go' }], [{ summary: true }, { say: '###PLAN_COMPLETE###' }]],
  };

  async function stopsAfterIteration(ws: Workspace, request: () => Promise<void>): Promise<void> {
    const cmd = ws.agent(scenario);
    const run = start(ws, [], cmd);
    await waitFor(() => transcript(ws, 1).includes('busy'), 'iteration 1 to be under way');
    await request();
    writeFileSync(join(ws.cwd, 'go'), '');
    const ran = await run.done;

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.interrupted);
    const result = ws.result();
    expect(result).toMatchObject({ outcome: 'interrupted', iterations: 1 });
    // The current iteration ran to its own end (exit 0), and no other started.
    const ends = ws.events().filter((e) => e.type === 'iteration-end');
    expect(ends).toHaveLength(1);
    expect(ends[0]).toMatchObject({ iteration: 1, exitCode: 0 });
    expect(ws.calls()).toHaveLength(1);

    const resumed = await resume(ws, [], cmd);
    expect(resumed.code, resumed.stderr).toBe(EXIT_CODES.complete);
    expect(ws.result()).toMatchObject({ outcome: 'complete', iterations: 2, run: result.run });
  }

  it('.ralph/stop in the working directory stops the run after its current iteration (130), and it resumes', async () => {
    const ws = workspace();
    await stopsAfterIteration(ws, async () => {
      mkdirSync(join(ws.cwd, RUN_FILES.root), { recursive: true });
      writeFileSync(join(ws.cwd, RUN_FILES.root, RUN_FILES.stopRequest), '');
    });
    expect(existsSync(join(ws.cwd, RUN_FILES.root, RUN_FILES.stopRequest))).toBe(false);
  });

  it('`ralph stop latest` does the same', async () => {
    const ws = workspace();
    await stopsAfterIteration(ws, async () => {
      const stop = await ralph(['stop', 'latest'], { cwd: ws.cwd });
      expect(stop.code, stop.stderr).toBe(0);
      expect(stop.stdout).toMatch(/stop/);
    });
  });

  it('`ralph stop` on a run that is not running says so and requests nothing', async () => {
    const ws = workspace();
    const cmd = ws.agent({ iterations: [[{ summary: true }, { say: '###PLAN_COMPLETE###' }]] });
    expect((await start(ws, [], cmd).done).code).toBe(EXIT_CODES.complete);
    const stop = await ralph(['stop', 'latest'], { cwd: ws.cwd });
    expect(stop.stdout).toMatch(/not running/);
    expect(existsSync(join(ws.runDir(), RUN_FILES.stopRequest))).toBe(false);
  });
});

describe('ralph status', () => {
  const status = async (ws: Workspace) => {
    const ran = await ralph(['status', 'latest', '--json'], { cwd: ws.cwd });
    expect(ran.code, ran.stderr).toBe(0);
    const lines = ran.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    return JSON.parse(lines[0]!) as Record<string, unknown>;
  };

  it('follows a run: running with its signal files, dead after SIGKILL, then the outcome of the resumed run', async () => {
    const ws = workspace();
    const cmd = ws.agent({
      iterations: [[{ summary: true }, { write: SIGNAL_FILES.taskComplete, content: 'done\n' }, { say: 'written' }, { hang: true }]],
    });
    const run = start(ws, [], cmd);
    await waitFor(() => transcript(ws, 1).includes('written'), 'the agent to write TASK_COMPLETE');

    const running = await status(ws);
    expect(running).toMatchObject({ health: 'running', iteration: 1, pid: run.child.pid, outcome: null });
    expect(running.signalFiles).toEqual([SIGNAL_FILES.taskComplete]);
    expect(running.run).toBe(ws.runDir().split('/').pop());

    run.child.kill('SIGKILL');
    await run.done;
    const dead = await status(ws);
    expect(dead).toMatchObject({ health: 'dead', outcome: null });
    expect(String(dead.why)).toMatch(/--resume/);

    // The orphan is stopped, and its TASK_COMPLETE is weighed as iteration 1's claim.
    const resumed = await resume(ws, [], cmd);
    expect(resumed.code, resumed.stderr).toBe(EXIT_CODES.complete);
    expect(ws.calls()).toHaveLength(1);
    expect(alive(ws.pids()[0]!.pid)).toBe(false);
    expect(await status(ws)).toMatchObject({ health: 'complete', outcome: 'complete', exitCode: 0, iteration: 1 });
  });

  it('names the problem, without a stack trace, when there is no run', async () => {
    const ws = workspace();
    const ran = await ralph(['status'], { cwd: ws.cwd });
    expect(ran.code).toBe(EXIT_CODES.usage);
    expect(ran.stderr).toMatch(/no runs/);
    expect(ran.stderr).not.toMatch(/\n\s+at /);
  });
});
