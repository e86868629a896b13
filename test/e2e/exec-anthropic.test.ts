// `ralph exec --executor anthropic` through the built CLI, with the real SDK talking to a loopback
// server that streams the Messages API's SSE events: tools that make real files, an overloaded
// first answer, a continuation, a bailout into a fresh conversation, cost, and the key kept out
// of everything ralph writes.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { FakeMessagesServer, reply } from '../executors/anthropic/fake-messages-server.js';
import { FAKE_KEY } from '../executors/anthropic/helpers.js';
import { BIN } from '../helpers/run-ralph.js';

let server: FakeMessagesServer;
let dir: string;

beforeAll(async () => {
  expect(existsSync(resolve('dist/cli/main.js')), 'build first (npm test does)').toBe(true);
});
afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: dir, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

function filesUnder(root: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const PLAN = `---
id: tools
max_iterations: 5
---
# Make two files

<tasks>
  <task><name>Task 1</name><action>Make out/a.txt with bash and out/b.txt with the editor.</action></task>
</tasks>

## Progress
`;

const usage = { input_tokens: 1200, output_tokens: 300, cache_creation_input_tokens: 800, cache_read_input_tokens: 0 };

it('runs a scripted conversation to completion: tools, 529 then success, continuation, bailout, cost, no key', async () => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-anthropic-'));
  writeFileSync(join(dir, 'plan.md'), PLAN);
  const summary = JSON.stringify({ plan: 'tools', status: 'complete', tasks: [{ name: 'Task 1', status: 'done' }] });
  server = await FakeMessagesServer.start();
  server.enqueue(
    // Iteration 1: overloaded once, then bash, then the editor, then the turn ends without a signal.
    reply.error(529, 'overloaded_error', 'Overloaded', { 'retry-after': '0' }),
    reply.tool('t1', 'bash', { command: 'mkdir -p out && echo from-bash > out/a.txt && echo $ANTHROPIC_API_KEY' }, 'Making a.txt.'),
    reply.tool('t2', 'str_replace_based_edit_tool', { command: 'create', path: 'out/b.txt', file_text: 'from-editor\n' }),
    reply.turn({ blocks: [{ type: 'text', deltas: ['Both files are there; ', 'checking next time.'] }], stopReason: 'end_turn', usage }),
    // Iteration 2 continues the same conversation, then bails out.
    reply.text(['Context is full.\n###BAIL', 'OUT:context full###'], 'end_turn', usage),
    // Iteration 3 is a fresh conversation: writes the summary and claims completion.
    reply.tool('t3', 'str_replace_based_edit_tool', { command: 'create', path: 'plan.summary.json', file_text: summary }),
    reply.turn({
      blocks: [{ type: 'text', deltas: ['<observation type="insight" severity="low"><title>Two tools</title>', '<detail>bash and the editor both work</detail></observation>\n###PLAN_', 'COMPLETE###'] }],
      stopReason: 'end_turn',
      usage,
    }),
  );

  const result = await run(['exec', 'plan.md', '--executor', 'anthropic', '--model', 'claude-sonnet-5', '--max-retries', '2', '--quiet'], {
    ANTHROPIC_API_KEY: FAKE_KEY,
    ANTHROPIC_BASE_URL: server.url,
  });
  expect(result.stderr).not.toContain('internal error');
  expect(result.code).toBe(0);
  expect(readFileSync(join(dir, 'out/a.txt'), 'utf8')).toBe('from-bash\n');
  expect(readFileSync(join(dir, 'out/b.txt'), 'utf8')).toBe('from-editor\n');

  // 529 retried; iteration 2 continued the conversation; iteration 3 started a fresh one.
  const bodies = server.requests.map((r) => r.body);
  expect(bodies.length).toBe(7);
  const iteration2 = bodies[4];
  const iteration3 = bodies[5];
  expect(iteration2.messages.length).toBeGreaterThan(3);
  expect(iteration3.messages.length).toBe(1);
  expect(JSON.stringify(iteration3.messages[0])).toContain('context full');

  const runs = join(dir, '.ralph', 'runs');
  const runDir = join(runs, readdirSync(runs)[0]!);
  const res = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8'));
  expect(res.outcome).toBe('complete');
  expect(res.iterations).toBe(3);
  expect(res.bailouts).toBe(1);
  expect(res.costUsd).toBeGreaterThan(0);
  expect(res.tokens.input).toBeGreaterThan(0);
  const findings = readFileSync(join(runDir, 'findings.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  expect(findings).toMatchObject([{ valid: true, type: 'insight', title: 'Two tools' }]);

  // The key is in no file ralph wrote, although the agent asked the shell for it.
  for (const file of filesUnder(join(dir, '.ralph'))) {
    expect(readFileSync(file, 'utf8'), file).not.toContain(FAKE_KEY);
  }
  expect(result.stdout + result.stderr).not.toContain(FAKE_KEY);
});

it('a refused key ends the run failed (exit 1) with a message about the key', async () => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-anthropic-'));
  writeFileSync(join(dir, 'plan.md'), PLAN);
  server = await FakeMessagesServer.start();
  server.enqueue(reply.error(401, 'authentication_error', 'invalid x-api-key'));
  const result = await run(['exec', 'plan.md', '--executor', 'anthropic', '--quiet'], {
    ANTHROPIC_API_KEY: FAKE_KEY,
    ANTHROPIC_BASE_URL: server.url,
  });
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/ANTHROPIC_API_KEY/);
  expect(result.stdout + result.stderr).not.toContain(FAKE_KEY);
  expect(result.stderr).not.toMatch(/\n\s+at /);
});

it('--executor anthropic without a key is a usage error (64) before anything runs', async () => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-anthropic-'));
  writeFileSync(join(dir, 'plan.md'), PLAN);
  const env = { ...process.env };
  delete env.ANTHROPIC_API_KEY;
  const result = await new Promise<{ code: number | null; stderr: string }>((done) => {
    const child = spawn(process.execPath, [BIN, 'exec', 'plan.md', '--executor', 'anthropic'], { cwd: dir, env });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => done({ code, stderr }));
  });
  expect(result.code).toBe(64);
  expect(result.stderr).toContain('ANTHROPIC_API_KEY');
  expect(existsSync(join(dir, '.ralph'))).toBe(false);
});

it('an API that stays overloaded past the retries is waited out, shown as a wait, and costs no iteration', async () => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-anthropic-'));
  writeFileSync(join(dir, 'plan.md'), PLAN);
  const summary = JSON.stringify({ plan: 'tools', status: 'complete', tasks: [{ name: 'Task 1', status: 'done' }] });
  server = await FakeMessagesServer.start();
  // Long enough that the wait is still ahead when the loop looks, however loaded the machine.
  const overloaded = () => reply.error(529, 'overloaded_error', 'Overloaded', { 'retry-after-ms': '1500' });
  server.enqueue(
    overloaded(),
    overloaded(),
    reply.tool('t1', 'str_replace_based_edit_tool', { command: 'create', path: 'plan.summary.json', file_text: summary }),
    reply.text(['###PLAN_COMPLETE###']),
  );
  const result = await run(['exec', 'plan.md', '--executor', 'anthropic', '--max-retries', '0'], { ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: server.url });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout + result.stderr).toMatch(/waiting for the overloaded API until \d\d:\d\d/);
  const runs = join(dir, '.ralph', 'runs');
  const runDir = join(runs, readdirSync(runs)[0]!);
  const res = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8'));
  expect(res).toMatchObject({ outcome: 'complete', iterations: 1 });
  const events = readFileSync(join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  expect(events.filter((e) => e.type === 'wait_start')).toHaveLength(2);
  expect(events.filter((e) => e.type === 'wait_end').map((e) => e.end)).toEqual(['done', 'done']);
});
