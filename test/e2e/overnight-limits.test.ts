// A run that meets a usage limit waits for it to reset and runs the same iteration again
// (docs/overnight.md). The real SDK talks to a loopback Messages server; the loop's clock is
// driven by the test, so a five-hour wait takes no time.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runPlan } from '../../src/loop/index.js';
import type { RunEvent } from '../../src/loop/events.js';
import { FakeMessagesServer, reply } from '../executors/anthropic/fake-messages-server.js';
import { FAKE_KEY } from '../executors/anthropic/helpers.js';
import { FakeClock } from '../loop/fake-clock.js';

const PLAN = `---
id: night
max_iterations: 5
---
# One task

<tasks>
  <task><name>Task 1</name><action>Write the summary.</action></task>
</tasks>

## Progress
`;
const SUMMARY = JSON.stringify({ plan: 'night', status: 'complete', tasks: [{ name: 'Task 1', status: 'done' }] });
const FIVE_HOURS = 5 * 3_600_000;
const START = Date.UTC(2026, 10, 25, 1, 0, 0);

let server: FakeMessagesServer | undefined;
let dir = '';
afterEach(async () => {
  await server?.close();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function completes(): ReturnType<typeof reply.tool>[] {
  return [
    reply.tool('t1', 'str_replace_based_edit_tool', { command: 'create', path: 'plan.summary.json', file_text: SUMMARY }),
    reply.text(['Done.\n###PLAN_COMPLETE###']),
  ];
}

/** Runs the plan in-process; when the loop starts waiting, time jumps to the end of the wait. */
async function run(opts: { clock: FakeClock; args?: Record<string, unknown>; onWait?: (e: Extract<RunEvent, { type: 'wait_start' }>, abort: AbortController) => void }) {
  const events: RunEvent[] = [];
  const statuses: unknown[] = [];
  const abort = new AbortController();
  const result = await runPlan(
    { planPath: join(dir, 'plan.md'), cwd: dir, executor: 'anthropic', model: 'claude-sonnet-5', maxRetries: 0, ...opts.args },
    {
      clock: opts.clock,
      signal: abort.signal,
      env: { ...process.env, ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: server!.url },
      onEvent: (e) => {
        events.push(e);
        if (e.type !== 'wait_start') return;
        statuses.push(JSON.parse(readFileSync(join(result_dir(e), 'STATUS.json'), 'utf8')));
        if (opts.onWait) opts.onWait(e, abort);
        else setImmediate(() => opts.clock.advance(Date.parse(e.until) - opts.clock.now()));
      },
    },
  );
  return { result, events, statuses };
  function result_dir(_e: RunEvent): string {
    const start = events.find((x): x is Extract<RunEvent, { type: 'run-start' }> => x.type === 'run-start');
    return start!.runDir;
  }
}

describe('usage limits', () => {
  it('waits five hours for a limit, then completes in the iteration after it; the limit spends no iteration', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-night-'));
    writeFileSync(join(dir, 'plan.md'), PLAN);
    server = await FakeMessagesServer.start();
    server.enqueue(reply.error(429, 'rate_limit_error', 'You have hit your usage limit', { 'retry-after': String(FIVE_HOURS / 1000) }), ...completes());
    const clock = new FakeClock(START);

    const { result, events, statuses } = await run({ clock });

    expect(result.outcome, result.reason).toBe('complete');
    expect(result.iterations).toBe(1);
    const waits = events.filter((e) => e.type === 'wait_start');
    expect(waits).toEqual([expect.objectContaining({ iteration: 1, kind: 'usage', until: new Date(START + FIVE_HOURS).toISOString(), basis: 'retry-after' })]);
    expect(events.filter((e) => e.type === 'wait_end')).toEqual([expect.objectContaining({ end: 'done', waitedMs: FIVE_HOURS })]);
    expect(statuses).toEqual([expect.objectContaining({ state: 'waiting', waitingUntil: new Date(START + FIVE_HOURS).toISOString() })]);
    // The refused attempt and the one after it got the same (first) prompt.
    expect(events.filter((e) => e.type === 'iteration-start').map((e) => (e as { iteration: number }).iteration)).toEqual([1, 1]);
    expect(server.requests).toHaveLength(3);
    expect(JSON.stringify(server.requests[1]!.body.messages)).toBe(JSON.stringify(server.requests[0]!.body.messages));
  });

  it('ends exhausted (usage_limit) with the command to resume when the reset is past --max-wait', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-night-'));
    writeFileSync(join(dir, 'plan.md'), PLAN);
    server = await FakeMessagesServer.start();
    server.enqueue(reply.error(429, 'rate_limit_error', 'usage limit reached', { 'retry-after': String(FIVE_HOURS / 1000) }));
    const clock = new FakeClock(START);

    const { result, events } = await run({ clock, args: { maxWaitMs: 3_600_000 } });

    expect(result.outcome).toBe('exhausted');
    expect(result.reason).toMatch(/^usage_limit: /);
    expect(result.reason).toContain(`ralph exec ${join(dir, 'plan.md')} --resume ${result.run}`);
    expect(result.iterations).toBe(0);
    expect(events.some((e) => e.type === 'wait_start')).toBe(false);
  });

  it("the API key's spend cap (a 400) ends the run failed at once, saying how to lift it: no wait, no second attempt", async () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-night-'));
    writeFileSync(join(dir, 'plan.md'), PLAN);
    server = await FakeMessagesServer.start();
    server.enqueue(reply.error(400, 'invalid_request_error', 'You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.'), ...completes());

    const { result, events } = await run({ clock: new FakeClock(START) });

    expect(result.outcome).toBe('failed');
    expect(result.iterations).toBe(1);
    expect(result.reason).toMatch(/specified API usage limits.*raise it in the Anthropic Console/);
    expect(events.some((e) => e.type === 'wait_start')).toBe(false);
    expect(server.requests).toHaveLength(1);
  });

  it('a run interrupted while waiting keeps the reset time; resumed later, it waits only for the rest', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ralph-night-'));
    writeFileSync(join(dir, 'plan.md'), PLAN);
    server = await FakeMessagesServer.start();
    server.enqueue(reply.error(429, 'rate_limit_error', 'usage limit reached', { 'retry-after': String(FIVE_HOURS / 1000) }), ...completes());

    const first = await run({ clock: new FakeClock(START), onWait: (_e, abort) => setImmediate(() => abort.abort()) });
    expect(first.result.outcome).toBe('interrupted');
    const state = JSON.parse(readFileSync(join(first.result.runDir!, 'state.json'), 'utf8'));
    expect(state.waitUntil).toBe(START + FIVE_HOURS);

    // Two hours later the run is resumed: it waits the three hours left, then completes.
    const later = new FakeClock(START + 2 * 3_600_000);
    const second = await run({ clock: later, args: { resume: 'latest' } });
    expect(second.result.outcome, second.result.reason).toBe('complete');
    expect(second.result.iterations).toBe(1);
    expect(second.events.filter((e) => e.type === 'wait_end')).toEqual([expect.objectContaining({ end: 'done', waitedMs: 3 * 3_600_000 })]);
  });
});
