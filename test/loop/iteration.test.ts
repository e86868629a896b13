// One iteration with a scripted executor (an async generator of ExecutorEvents): what the loop
// reports and keeps (docs/agents.md): usage totals, stops as events, what comes after a stop, the
// tool phase, and why an agent failed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Executor, ExecutorEvent, ExecutorRunOptions } from '../../src/executors/types.js';
import { RunBus } from '../../src/loop/bus.js';
import type { RunEvent } from '../../src/loop/events.js';
import { runIteration, type IterationInput } from '../../src/loop/iteration.js';
import { Transcript } from '../../src/runs/transcript.js';
import { FakeClock } from './fake-clock.js';

const dir = mkdtempSync(join(tmpdir(), 'ralph-iteration-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An executor that yields `script(options)`; it waits for the abort when the script says 'wait'. */
function scripted(script: (run: ExecutorRunOptions) => (ExecutorEvent | 'wait')[]): Executor & { aborted: boolean; waiting: Promise<void> } {
  let reachedWait = () => {};
  const ex = {
    name: 'scripted',
    aborted: false,
    /** Settles when the script reaches its first 'wait': the test moves time on then, not after a guessed delay. */
    waiting: new Promise<void>((resolve) => (reachedWait = resolve)),
    async *run(run: ExecutorRunOptions): AsyncGenerator<ExecutorEvent> {
      for (const step of script(run)) {
        if (step === 'wait') {
          reachedWait();
          if (!run.signal.aborted) await new Promise<void>((resolve) => run.signal.addEventListener('abort', () => resolve(), { once: true }));
          ex.aborted = true;
          continue;
        }
        yield step;
      }
    },
  };
  return ex;
}

async function iterate(executor: Executor, over: Partial<IterationInput> = {}) {
  const bus = new RunBus();
  const events: RunEvent[] = [];
  bus.on('event', (e) => events.push(e));
  const transcript = new Transcript(join(dir, `${Math.random()}.log`));
  const result = await runIteration({
    executor,
    prompt: { instructions: '', plan: '', message: '', text: '' },
    fresh: true,
    iteration: 2,
    cwd: dir,
    env: {},
    bus,
    transcript,
    clock: new FakeClock(),
    silenceTimeoutMs: 60_000,
    signalGraceMs: 10_000,
    runSignal: new AbortController().signal,
    costBefore: 1.5,
    tokensBefore: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 },
    wantOutput: false,
    ...over,
  });
  transcript.close();
  return { result, events };
}

const usage = (input: number, costUsd: number | null): ExecutorEvent => ({ type: 'usage', tokens: { input, output: 10, cacheRead: 0, cacheWrite: 0 }, costUsd });

describe('runIteration', () => {
  it('usage events carry the report and the run totals so far (one meaning of totalTokens)', async () => {
    const { events } = await iterate(scripted(() => [usage(200, 0.25), usage(300, 0.5), { type: 'exit', code: 0 }]));
    const reports = events.filter((e): e is Extract<RunEvent, { type: 'usage' }> => e.type === 'usage');
    expect(reports.map((e) => [e.tokens.input, e.totalTokens.input, e.totalCostUsd])).toEqual([
      [200, 1200, 1.75],
      [300, 1500, 2.25],
    ]);
  });

  it('a fatal agent error stops the agent at once: a stop event, the result fatal, the message kept', async () => {
    const ex = scripted(() => [{ type: 'error', message: 'claude: the API refused the request (HTTP 401)', status: 401, fatal: true }, 'wait', { type: 'exit', code: 1 }]);
    const { result, events } = await iterate(ex);
    expect(ex.aborted).toBe(true);
    expect(events.filter((e) => e.type === 'stop')).toEqual([{ type: 'stop', iteration: 2, cause: 'agent_error', detail: 'claude: the API refused the request (HTTP 401)' }]);
    expect(result).toMatchObject({ fatal: true, exitError: 'claude: the API refused the request (HTTP 401)', failureDetail: 'claude: the API refused the request (HTTP 401)' });
  });

  it('after ralph stopped the agent, its signals decide nothing: they are reported as ignored', async () => {
    const clock = new FakeClock();
    const ex = scripted(() => [
      { type: 'text', stream: 'stdout', chunk: 'working\n' },
      'wait',
      { type: 'text', stream: 'stdout', chunk: '###PLAN_COMPLETE###\n' },
      { type: 'exit', code: 0 },
    ]);
    const pending = iterate(ex, { clock, iterationTimeoutMs: 1_000 });
    await ex.waiting;
    clock.advance(1_000);
    const { result, events } = await pending;
    expect(result.stop?.cause).toBe('iteration_timeout');
    expect(result.weighed).toEqual([]);
    expect(events.filter((e) => e.type === 'ignored')).toEqual([
      expect.objectContaining({ text: '###PLAN_COMPLETE###', why: 'after ralph asked the agent to stop (iteration_timeout)' }),
    ]);
    expect(events.map((e) => e.type)).toContain('stop');
  });

  it('tool events keep their phase', async () => {
    const { events } = await iterate(
      scripted(() => [
        { type: 'tool', name: 'Bash', summary: 'ls', phase: 'call' },
        { type: 'tool', name: 'Bash', summary: 'ls' },
        { type: 'exit', code: 0 },
      ]),
    );
    expect(events.filter((e) => e.type === 'tool').map((e) => (e as { phase: string }).phase)).toEqual(['call', 'result']);
  });

  it("why it failed: the agent's error message over the tail of its stderr; nothing done means not active", async () => {
    const { result } = await iterate(scripted(() => [{ type: 'exit', code: 1, stderrTail: 'fatal: no such model' }]));
    expect(result).toMatchObject({ failureDetail: 'fatal: no such model', agentActive: false });
    const both = await iterate(scripted(() => [{ type: 'error', message: 'codex error: boom' }, { type: 'exit', code: 1, stderrTail: 'Reading prompt from stdin...' }]));
    expect(both.result.failureDetail).toBe('codex error: boom');
  });
});

describe('one line per refusal', () => {
  it('an error that comes with a limit is not shown as a warning beside it; it is still the failure detail', async () => {
    const { events, result } = await iterate(
      scripted(() => [
        { type: 'error', message: 'codex error: You’ve hit your usage limit. Try again later.', limit: true },
        { type: 'limit', kind: 'usage', message: 'codex error: You’ve hit your usage limit. Try again later.' },
        { type: 'exit', code: 1 },
      ]),
    );
    expect(events.filter((e) => e.type === 'warning')).toEqual([]);
    expect(events.filter((e) => e.type === 'limit')).toHaveLength(1);
    expect(result.failureDetail).toBe('codex error: You’ve hit your usage limit. Try again later.');
  });
});
