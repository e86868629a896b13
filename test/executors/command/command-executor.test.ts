import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCommandExecutor, type CommandExecutorOptions, type CommandExecutorTuning } from '../../../src/executors/command/index.js';
import type { ExecutorEvent, ExecutorRunOptions } from '../../../src/executors/types.js';
import { UsageError } from '../../../src/errors.js';
import { AGENTS, STREAMS, isRunning, logOf, meaningful, runningWith, textOf } from './helpers.js';

// Grandchildren of these tests sleep for this many seconds: a marker to find leftovers by.
const MARKER = '7301';
const node = process.execPath;
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-command-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  // Nothing a test started may outlive it.
  expect(runningWith(`sleep ${MARKER}`)).toEqual([]);
  // Only this file's own agents: other test files run theirs (scripted-agent.mjs) in parallel.
  expect(OWN_AGENTS.flatMap((agent) => runningWith(`${AGENTS}${agent}`))).toEqual([]);
});

const OWN_AGENTS = ['echo-agent.mjs', 'flood.mjs', 'leaves-background.mjs', 'replay.mjs', 'stubborn.mjs', 'two-chunks.mjs', 'sigint-result.mjs'];

function runOptions(over: Partial<ExecutorRunOptions> = {}): ExecutorRunOptions {
  return {
    prompt: { instructions: 'I', plan: 'P', message: 'M', text: 'the whole prompt\nline two\n' },
    cwd: dir,
    fresh: true,
    iteration: 1,
    env: {},
    signal: new AbortController().signal,
    ...over,
  };
}

function executor(command: string[], options: Omit<CommandExecutorOptions, 'command'> = {}, tuning?: CommandExecutorTuning) {
  return createCommandExecutor({ command, ...options }, tuning);
}

async function collect(events: AsyncIterable<ExecutorEvent>): Promise<ExecutorEvent[]> {
  const out: ExecutorEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

function lastOf(events: ExecutorEvent[]): ExecutorEvent | undefined {
  return events[events.length - 1];
}

describe('command executor: text', () => {
  it('writes the prompt to stdin, passes RALPH_* variables, and streams stdout and stderr', async () => {
    const env = { RALPH_RUN_ID: 'run-1', RALPH_ITERATION: '3', RALPH_FRESH_CONTEXT: '1', RALPH_PLAN: '/p/plan.md' };
    const events = await collect(executor([node, `${AGENTS}echo-agent.mjs`]).run(runOptions({ env })));
    const report = JSON.parse(textOf(events, 'stdout'));
    expect(report.stdin).toBe('the whole prompt\nline two\n');
    expect(report.env).toMatchObject(env);
    expect(report.cwd).toBe(dir);
    expect(textOf(events, 'stderr')).toBe('echo-agent: done\n');
    expect(events.filter((e) => e.type === 'text').every((e) => Buffer.isBuffer((e as { chunk: unknown }).chunk))).toBe(true);
    // The last lines of stderr travel with the exit, to say why an agent failed.
    expect(lastOf(events)).toEqual({ type: 'exit', code: 0, signal: null, stderrTail: 'echo-agent: done' });
    expect(events.filter((e) => e.type === 'exit')).toHaveLength(1);
  });

  it('reports the exit code', async () => {
    const events = await collect(executor([node, `${AGENTS}echo-agent.mjs`, '3']).run(runOptions()));
    expect(lastOf(events)).toEqual({ type: 'exit', code: 3, signal: null, stderrTail: 'echo-agent: done' });
  });

  it('hands over each chunk as it comes, a half line included', async () => {
    const go = join(dir, 'go');
    rmSync(go, { force: true });
    const chunks: string[] = [];
    let exit: ExecutorEvent | undefined;
    for await (const e of executor([node, `${AGENTS}two-chunks.mjs`, go]).run(runOptions())) {
      if (e.type === 'text') {
        chunks.push(e.chunk.toString());
        // The agent writes the rest only once we have seen the first half: it must not wait for a line end.
        if (chunks.length === 1) writeFileSync(go, '');
      } else if (e.type === 'exit') exit = e;
    }
    expect(chunks).toEqual(['partial ', 'line\n']);
    expect(exit).toEqual({ type: 'exit', code: 0, signal: null });
  });

  it("reports a CLI's own usage-limit notice as a limit event, split across chunks or not", async () => {
    const script = 'process.stdout.write("working\\nClaude AI usage limit "); setTimeout(() => process.stdout.write("reached|1764112800\\n"), 50)';
    const events = await collect(executor([node, '-e', script]).run(runOptions()));
    expect(events.filter((e) => e.type === 'limit')).toEqual([
      { type: 'limit', kind: 'usage', message: 'Claude AI usage limit reached|1764112800', resetsAt: 1764112800_000 },
    ]);
    expect(textOf(events)).toBe('working\nClaude AI usage limit reached|1764112800\n');
  });

  it('is fine with a program that never reads its stdin, however long the prompt', async () => {
    const text = 'p'.repeat(4 * 1024 * 1024);
    const events = await collect(
      executor([node, '-e', 'process.stdout.write("ok\\n")']).run(runOptions({ prompt: { instructions: '', plan: '', message: '', text } })),
    );
    expect(textOf(events)).toBe('ok\n');
    expect(lastOf(events)).toEqual({ type: 'exit', code: 0, signal: null });
  });

  it('loses nothing and ends last when the consumer is slower than the agent', async () => {
    const lines = 20_000;
    let bytes = 0;
    let last: ExecutorEvent | undefined;
    for await (const e of executor([node, `${AGENTS}flood.mjs`, String(lines)], {}, { highWater: 4 }).run(runOptions())) {
      if (e.type === 'text') bytes += e.chunk.length;
      last = e;
      await new Promise((resolve) => setImmediate(resolve));
    }
    let expected = 0;
    for (let i = 0; i < lines; i++) expected += `line ${i} ${'x'.repeat(100)}\n`.length;
    expect(bytes).toBe(expected);
    expect(last).toEqual({ type: 'exit', code: 0, signal: null });
  });
});

describe('command executor: cannot start', () => {
  it('reports a program that does not exist as a fatal exit, without throwing', async () => {
    const events = await collect(executor(['ralph-no-such-program-xyz', '--flag']).run(runOptions()));
    expect(events).toEqual([
      {
        type: 'exit',
        code: null,
        fatal: true,
        error: 'cannot start "ralph-no-such-program-xyz": no such program (is it installed and on PATH?); check the command after -- or the plan\'s command',
      },
    ]);
  });

  it('reports a file that is not executable', async () => {
    const script = join(dir, 'not-executable.sh');
    writeFileSync(script, '#!/bin/sh\necho hi\n');
    chmodSync(script, 0o644);
    const events = await collect(executor([script]).run(runOptions()));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'exit', code: null, fatal: true });
    expect((events[0] as { error: string }).error).toContain(`cannot start "${script}": permission denied`);
  });

  it('names a missing working directory rather than the program', async () => {
    const events = await collect(executor([node, '-e', '']).run(runOptions({ cwd: join(dir, 'nowhere') })));
    expect(events).toEqual([
      { type: 'exit', code: null, fatal: true, error: expect.stringContaining(`the working directory "${join(dir, 'nowhere')}" does not exist`) },
    ]);
  });

  it('refuses an empty command when it is created', () => {
    expect(() => createCommandExecutor({ command: [] })).toThrow(UsageError);
  });

  it('does not start when already stopped', async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await collect(executor([node, `${AGENTS}stubborn.mjs`, MARKER]).run(runOptions({ signal: controller.signal })));
    expect(events).toEqual([{ type: 'exit', code: null, signal: null, error: 'stopped before it started' }]);
  });
});

describe('command executor: stopping', () => {
  it('on abort: TERM, then KILL after the grace, grandchildren included', async () => {
    const controller = new AbortController();
    const graceMs = 300;
    let pids: { pid: number; grandchild: number } | undefined;
    let abortedAt = 0;
    const events: ExecutorEvent[] = [];
    for await (const e of executor([node, `${AGENTS}stubborn.mjs`, MARKER], { killGraceMs: graceMs }).run(runOptions({ signal: controller.signal }))) {
      events.push(e);
      if (e.type === 'text' && pids === undefined) {
        pids = JSON.parse(e.chunk.toString());
        expect(isRunning(pids!.grandchild)).toBe(true);
        abortedAt = Date.now();
        controller.abort();
      }
    }
    expect(Date.now() - abortedAt).toBeGreaterThanOrEqual(graceMs - 20); // TERM was ignored: KILL came after the grace
    expect(lastOf(events)).toEqual({ type: 'exit', code: null, signal: 'SIGKILL' });
    expect(isRunning(pids!.pid)).toBe(false);
    expect(isRunning(pids!.grandchild)).toBe(false);
  });

  it('stops a program that heeds TERM without waiting for the grace', async () => {
    const controller = new AbortController();
    const events: ExecutorEvent[] = [];
    // A grace far past the test's timeout: waiting it out would fail the test.
    for await (const e of executor([node, '-e', 'console.log("up"); setInterval(() => {}, 1000)'], { killGraceMs: 3_600_000 }).run(
      runOptions({ signal: controller.signal }),
    )) {
      events.push(e);
      if (e.type === 'text') controller.abort();
    }
    expect(lastOf(events)).toEqual({ type: 'exit', code: null, signal: 'SIGTERM' });
  });

  it('claude-json: SIGINT first, so the agent reports its cost before it goes', async () => {
    const controller = new AbortController();
    const events: ExecutorEvent[] = [];
    const ex = executor([node, `${AGENTS}sigint-result.mjs`], { streamFormat: 'claude-json', killGraceMs: 2_000 }, { gracefulStopMs: 5_000 });
    for await (const e of ex.run(runOptions({ signal: controller.signal }))) {
      events.push(e);
      if (e.type === 'text') controller.abort();
    }
    expect(events.filter((e) => e.type === 'usage')).toEqual([
      { type: 'usage', tokens: { input: 700, output: 90, cacheRead: 50, cacheWrite: 5 }, costUsd: 0.53 },
    ]);
    expect(lastOf(events)).toMatchObject({ type: 'exit', code: 130 });
  });

  it('claude-json: an agent that ignores SIGINT is TERMed after the wait, and its per-message usage counts as an estimate', async () => {
    const controller = new AbortController();
    const events: ExecutorEvent[] = [];
    let abortedAt = 0;
    const ex = executor([node, `${AGENTS}sigint-result.mjs`, 'deaf'], { streamFormat: 'claude-json', killGraceMs: 2_000 }, { gracefulStopMs: 300 });
    for await (const e of ex.run(runOptions({ signal: controller.signal }))) {
      events.push(e);
      if (e.type === 'text') {
        abortedAt = Date.now();
        controller.abort();
      }
    }
    expect(Date.now() - abortedAt).toBeGreaterThanOrEqual(280);
    expect(events.filter((e) => e.type === 'usage')).toEqual([
      { type: 'usage', tokens: { input: 700, output: 1, cacheRead: 50, cacheWrite: 5 }, costUsd: null, estimate: true },
    ]);
    expect(lastOf(events)).toMatchObject({ type: 'exit', code: 143 });
  });

  it('kills the group when the consumer stops reading early', async () => {
    let pids: { pid: number; grandchild: number } | undefined;
    for await (const e of executor([node, `${AGENTS}stubborn.mjs`, MARKER], { killGraceMs: 200 }).run(runOptions())) {
      if (e.type === 'text') {
        pids = JSON.parse(e.chunk.toString());
        break;
      }
    }
    expect(pids).toBeDefined();
    expect(isRunning(pids!.pid)).toBe(false);
    expect(isRunning(pids!.grandchild)).toBe(false);
  });

  it('ends when the agent exits even if a background process holds its output open, and stops that process', async () => {
    const events = await collect(executor([node, `${AGENTS}leaves-background.mjs`, MARKER], { killGraceMs: 500 }, { drainMs: 200 }).run(runOptions()));
    const { grandchild } = JSON.parse(textOf(events, 'stdout'));
    expect(events.some((e) => e.type === 'warning' && e.message.includes('kept its output open'))).toBe(true);
    expect(lastOf(events)).toEqual({ type: 'exit', code: 0, signal: null });
    expect(isRunning(grandchild)).toBe(false);
  });
});

describe('command executor: claude-json', () => {
  const claude = (file: string) => executor([node, `${AGENTS}replay.mjs`, `${STREAMS}${file}`, '-p', '--output-format', 'stream-json', '--verbose'], {
    streamFormat: 'claude-json',
  });
  const argsOf = (events: ExecutorEvent[]): string[] => JSON.parse(logOf(events, 'stderr').toString()).args;

  it('reads only the agent text, logs every stdout line, and reports usage, cost and session', async () => {
    const events = await collect(claude('claude-sample.ndjson').run(runOptions()));
    expect(textOf(events)).toMatch(/^I'll start with Task 1[^\n]*\nThe test expects `hello`[\s\S]*\n###PLAN_COMPLETE###\n$/);
    expect(textOf(events)).not.toContain('TEST_FAILED');
    expect(events.filter((e) => e.type === 'text').every((e) => (e as { parseOnly?: boolean }).parseOnly === true)).toBe(true);
    // The transcript holds the stream exactly as the agent wrote it.
    expect(logOf(events, 'stdout').equals(readFileSync(`${STREAMS}claude-sample.ndjson`))).toBe(true);
    expect(events).toContainEqual({ type: 'usage', tokens: { input: 4252, output: 239, cacheRead: 8020, cacheWrite: 4430 }, costUsd: 0.0412 });
    expect(events).toContainEqual({ type: 'session', id: '3f1c2a9e-5b7d-4e21-9a0c-8d2f6b1e4c77' });
    expect(textOf(events, 'stderr')).toBe(''); // stderr is logged, never parsed
    expect(lastOf(events)).toMatchObject({ type: 'exit', code: 0, signal: null });
  });

  it('continues the session with --resume on a non-fresh iteration, and starts anew on a fresh one', async () => {
    const ex = claude('claude-sample.ndjson');
    const first = await collect(ex.run(runOptions({ fresh: true, iteration: 1 })));
    expect(argsOf(first)).toEqual(['-p', '--output-format', 'stream-json', '--verbose']);
    const second = await collect(ex.run(runOptions({ fresh: false, iteration: 2 })));
    expect(argsOf(second)).toEqual(['-p', '--output-format', 'stream-json', '--verbose', '--resume', '3f1c2a9e-5b7d-4e21-9a0c-8d2f6b1e4c77']);
    const third = await collect(ex.run(runOptions({ fresh: true, iteration: 3 })));
    expect(argsOf(third)).toEqual(['-p', '--output-format', 'stream-json', '--verbose']);
  });

  it('does not resume when no session is known yet', async () => {
    const events = await collect(claude('claude-sample.ndjson').run(runOptions({ fresh: false })));
    expect(argsOf(events)).not.toContain('--resume');
  });

  it('warns once per iteration about non-JSON lines and reports an error result', async () => {
    const ex = claude('claude-edge.ndjson');
    for (const iteration of [1, 2]) {
      const events = await collect(ex.run(runOptions({ iteration, fresh: true })));
      const warnings = events.filter((e) => e.type === 'warning').map((e) => (e as { message: string }).message);
      const errors = events.filter((e) => e.type === 'error').map((e) => (e as { message: string }).message);
      expect(warnings.filter((w) => w.includes('not a JSON event'))).toHaveLength(1);
      expect(errors).toContain('claude reported an error (error_max_turns): max turns (30) reached');
      expect(textOf(events)).not.toContain('PLAN_COMPLETE');
      expect(lastOf(events)).toMatchObject({ type: 'exit', code: 0, signal: null });
    }
  });
});

describe('command executor: codex-json', () => {
  const codex = () =>
    executor([node, `${AGENTS}replay.mjs`, `${STREAMS}codex-sample.ndjson`, 'exec', '--json', '--full-auto', '-'], { streamFormat: 'codex-json' });

  it('reads agent messages and usage, and resumes the thread with `exec resume <id>`', async () => {
    const ex = codex();
    const first = await collect(ex.run(runOptions()));
    expect(textOf(first)).toBe('Updated the greeting and wrote plans/greeting.summary.json.\n\n###PLAN_COMPLETE###\n');
    expect(meaningful(first)).toContainEqual({ type: 'usage', tokens: { input: 315, output: 122, cacheRead: 24448, cacheWrite: 0 }, costUsd: null });
    const second = await collect(ex.run(runOptions({ fresh: false, iteration: 2 })));
    expect(JSON.parse(logOf(second, 'stderr').toString()).args).toEqual([
      'exec',
      '--json',
      '--full-auto',
      'resume',
      '0199a213-81c0-7800-8aa1-bbab2a035a53',
      '-',
    ]);
  });
});

describe('command executor: descendants that left the process group (docs/hostile.md)', () => {
  it('stopping the agent stops a child it started with setsid too', async () => {
    const controller = new AbortController();
    const events: ExecutorEvent[] = [];
    const run = executor(['sh', '-c', `setsid sleep ${MARKER} > /dev/null 2>&1 < /dev/null & echo started; sleep ${MARKER}`]).run(runOptions({ signal: controller.signal }));
    for await (const e of run) {
      events.push(e);
      if (e.type === 'text' && textOf(events, 'stdout').includes('started')) {
        // The setsid child is in its own session now; give it a moment to exist for sure.
        await new Promise((r) => setTimeout(r, 200));
        controller.abort();
      }
    }
    // afterEach checks that no `sleep ${MARKER}` is left, the setsid one included.
    expect(lastOf(events)?.type).toBe('exit');
  });
});
