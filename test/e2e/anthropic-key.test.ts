// The anthropic executor's bash tool under hostile use (docs/hostile.md), through the built CLI
// and the real SDK against a loopback Messages server. The API key out of its reach: the tool
// looks for the key everywhere it could (its own environment, ralph's /proc/<pid>/environ, every
// process's), and prints what it finds reversed and hex-encoded, which redaction of the literal
// key would not catch. A setsid daemon it starts is stopped when the iteration ends, while the
// persistent shell itself lives on into the next iteration.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { FakeMessagesServer, reply } from '../executors/anthropic/fake-messages-server.js';
import { FAKE_KEY } from '../executors/anthropic/helpers.js';
import { BIN } from '../helpers/run-ralph.js';
import { processesMentioning } from './helpers/exec-harness.js';

let server: FakeMessagesServer | undefined;
let dir: string | undefined;

afterEach(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** `ralph exec plan.md --executor anthropic --quiet ...args` in a fresh folder holding `plan`, against `server`. */
async function execAnthropic(plan: string, args: string[] = []): Promise<{ code: number | null; stdout: string; stderr: string }> {
  dir = mkdtempSync(join(tmpdir(), 'ralph-key-'));
  writeFileSync(join(dir, 'plan.md'), plan);
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN, 'exec', 'plan.md', '--executor', 'anthropic', ...args, '--quiet'], {
      cwd: dir,
      env: { ...process.env, ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: server!.url },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

const PLAN = `---\nid: key\nmax_iterations: 1\n---\n# Look for the key\n\n<tasks>\n  <task><name>Task 1</name><action>Look.</action></task>\n</tasks>\n`;

const LOOK = [
  'for f in /proc/$PPID/environ /proc/[0-9]*/environ; do cat "$f" 2>/dev/null; printf "\\n"; done > found.txt',
  'env >> found.txt',
  'echo "ppid=$PPID"',
  'tr "\\0" "\\n" < found.txt | rev',
  'od -An -tx1 found.txt | tr -d " \\n"',
].join('; ');

it('a bash tool command finds the key neither in its environment nor in /proc/$PPID/environ nor any /proc/*/environ', async () => {
  server = await FakeMessagesServer.start();
  server.enqueue(reply.tool('t1', 'bash', { command: LOOK }), reply.text(['looked'], 'end_turn'));
  const result = await execAnthropic(PLAN);
  expect(result.stderr).not.toContain('internal error');
  expect(server.requests.length).toBe(2);
  const toolResult = JSON.stringify(server.requests[1]!.body.messages.at(-1));
  // The command ran and read what it could.
  expect(toolResult).toContain('ppid=');
  expect(toolResult).toContain('=HTAP'); // PATH=, reversed
  const reversed = [...FAKE_KEY].reverse().join('');
  const hex = Buffer.from(FAKE_KEY).toString('hex');
  expect(toolResult).not.toContain(reversed);
  expect(toolResult).not.toContain(hex);
  expect(toolResult).not.toContain(FAKE_KEY);
});

it('an API failure is said once, without doubled words ("the executor the Anthropic API failed")', async () => {
  server = await FakeMessagesServer.start();
  server.enqueue(reply.error(500, 'api_error', 'Internal server error'), reply.error(500, 'api_error', 'Internal server error'));
  const result = await execAnthropic(PLAN, ['--max-retries', '0']);
  expect(result.stderr).toMatch(/iteration 1 ended without a decision: the Anthropic API failed/);
  expect(result.stderr).not.toMatch(/\b(\w+ \w+) \1\b/);
});

it('a setsid daemon started by the bash tool is stopped when the iteration ends; the shell itself carries on', async () => {
  server = await FakeMessagesServer.start();
  // The daemon sleeps past the test and is looked for by its command line (the sandbox gives it a
  // pid of its own namespace): only the iteration's stopping can end it.
  const sleep = `sleep 3600.${process.pid}`;
  server.enqueue(
    reply.tool('t1', 'bash', { command: `mkdir -p sub && cd sub && export KEPT=yes && (setsid sh -c '${sleep}; touch ../late-file' > /dev/null 2>&1 < /dev/null &) && echo started` }),
    reply.text(['started a daemon'], 'end_turn'),
    reply.tool('t2', 'bash', { command: 'echo "cwd=$(basename "$PWD") kept=$KEPT"' }),
    reply.text(['checked'], 'end_turn'),
  );
  const result = await execAnthropic(PLAN.replace('max_iterations: 1', 'max_iterations: 2'));
  expect(result.stderr).not.toContain('internal error');
  expect(server.requests.length).toBe(4);
  expect(JSON.stringify(server.requests[3]!.body.messages.at(-1))).toContain('cwd=sub kept=yes');
  expect(processesMentioning(sleep), 'the daemon outlived its iteration').toEqual([]);
  expect(existsSync(join(dir!, 'late-file')), 'the daemon outlived its iteration').toBe(false);
  const runs = join(dir!, '.ralph', 'runs');
  const events = readFileSync(join(runs, readdirSync(runs)[0]!, 'events.jsonl'), 'utf8');
  expect(events).toContain('"type":"processes-stopped","iteration":1');
});
