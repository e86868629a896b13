// A run that waits for a usage limit notifies `waiting` when the wait starts and `resumed` when
// it is over, then `ended`: the loop's real wait events (docs/overnight.md), the real SDK against
// a loopback Messages server, a real receiver; the loop's clock is driven by the test.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runPlan } from '../../src/loop/index.js';
import { createRunLifecycle } from '../../src/notify/run-lifecycle.js';
import { targetFromFlag } from '../../src/notify/targets.js';
import { FakeMessagesServer, reply } from '../executors/anthropic/fake-messages-server.js';
import { FAKE_KEY } from '../executors/anthropic/helpers.js';
import { FakeClock } from '../loop/fake-clock.js';
import { recorder, type Receiver } from './receivers.js';

const PLAN = `---\nid: night\nmax_iterations: 5\n---\n# One task\n\n<tasks>\n  <task><name>Task 1</name><action>Write the summary.</action></task>\n</tasks>\n\n## Progress\n`;
const SUMMARY = JSON.stringify({ plan: 'night', status: 'complete', tasks: [{ name: 'Task 1', status: 'done' }] });

let server: FakeMessagesServer | undefined;
let receiver: Receiver | undefined;
let dir = '';
afterEach(async () => {
  await server?.close();
  await receiver?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('waiting, resumed, then ended reach the receiver with the wait facts', async () => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-wait-notify-'));
  writeFileSync(join(dir, 'plan.md'), PLAN);
  server = await FakeMessagesServer.start();
  receiver = await recorder();
  server.enqueue(
    reply.error(429, 'rate_limit_error', 'You have hit your usage limit', { 'retry-after': String(5 * 3600) }),
    reply.tool('t1', 'str_replace_based_edit_tool', { command: 'create', path: 'plan.summary.json', file_text: SUMMARY }),
    reply.text(['Done.\n###PLAN_COMPLETE###']),
  );
  const clock = new FakeClock(Date.UTC(2026, 10, 25, 1, 0, 0));
  const result = await runPlan(
    { planPath: join(dir, 'plan.md'), cwd: dir, executor: 'anthropic', model: 'claude-sonnet-5', maxRetries: 0 },
    {
      clock,
      env: { ...process.env, ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: server.url },
      lifecycle: createRunLifecycle({ hooks: {}, targets: [targetFromFlag(receiver.url, 0)], redact: (s) => s }),
      onEvent: (e) => {
        if (e.type === 'wait_start') setImmediate(() => clock.advance(Date.parse(e.until) - clock.now()));
      },
    },
  );
  expect(result.outcome).toBe('complete');
  const bodies = receiver.received.map((r) => JSON.parse(r.body));
  expect(bodies.map((b) => b.event)).toEqual(['waiting', 'resumed', 'ended']);
  expect(bodies[0]).toMatchObject({ version: 1, plan: 'night', runDir: result.runDir, wait: { iteration: 1, kind: 'usage', until: '2026-11-25T06:00:00.000Z' } });
  expect(bodies[0].summary).toMatch(/^ralph: plan night is waiting for a usage limit until 2026-11-25T06:00:00\.000Z/);
  expect(bodies[2]).toMatchObject({ outcome: 'complete', exitCode: 0 });
  // The plan has no check of its own: that warning, and no other.
  expect(result.warnings).toEqual([expect.stringContaining('the plan has no check')]);
});
