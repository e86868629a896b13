// Tool round trips through the real SDK and a real loopback server: the model asks for a tool,
// ralph runs it in the working directory, and the next request carries the tool_result.
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicExecutor, type AnthropicExecutor } from '../../../src/executors/anthropic/index.js';
import type { ExecutorEvent } from '../../../src/executors/types.js';
import { FakeMessagesServer, reply } from './fake-messages-server.js';
import { FAKE_KEY, alive, collect, ofType, scratchDir, textOf } from './helpers.js';
import { PATIENCE_MS } from '../../helpers/patience.js';

// These tests follow the shell's processes by the pids it prints ($$, $!), which are host pids only
// outside a PID namespace; the namespaced shell is tested in test/e2e/anthropic-key.test.ts.
process.env.RALPH_NO_PID_NAMESPACE = '1';

const EDITOR = 'str_replace_based_edit_tool';

let server: FakeMessagesServer;
let scratch: { dir: string; cleanup: () => Promise<void> };
let executor: AnthropicExecutor;

beforeEach(async () => {
  server = await FakeMessagesServer.start();
  scratch = await scratchDir();
  executor = createAnthropicExecutor({ apiKey: FAKE_KEY, baseURL: server.url, commandTimeoutMs: 5_000 });
});
afterEach(async () => {
  await executor.close();
  await server.close();
  await scratch.cleanup();
});

interface ToolResult {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/** The tool_results of the user message that request `n` (0-based) ended with. */
function toolResultsOf(n: number): ToolResult[] {
  const messages = server.requests[n]!.body.messages as { role: string; content: { type: string }[] }[];
  const last = messages.at(-1)!;
  expect(last.role).toBe('user');
  return last.content.filter((b) => b.type === 'tool_result') as unknown as ToolResult[];
}

/** One tool call and a closing text turn; returns the events and the tool_result sent back. */
async function roundTrip(name: string, input: unknown): Promise<{ events: ExecutorEvent[]; result: ToolResult }> {
  server.enqueue(reply.tool('toolu_1', name, input), reply.text(['done']));
  const events = await collect(executor, { cwd: scratch.dir });
  expect(server.requests).toHaveLength(2);
  const [result] = toolResultsOf(1);
  expect(result!.tool_use_id).toBe('toolu_1');
  expect(ofType(events, 'exit')).toEqual([{ type: 'exit', code: 0 }]);
  return { events, result: result! };
}

describe('bash tool', () => {
  it('runs a command in the working directory and reports it as a tool event, never as text', async () => {
    const { events, result } = await roundTrip('bash', { command: 'echo "###PLAN_COMPLETE###"; pwd' });
    expect(result.is_error).toBeUndefined();
    expect(result.content).toBe(`###PLAN_COMPLETE###\n${scratch.dir}\n`);
    expect(ofType(events, 'tool')).toEqual([{ type: 'tool', name: 'bash', summary: '$ echo "###PLAN_COMPLETE###"; pwd' }]);
    expect(textOf(events)).toBe('done\n');
    expect(ofType(events, 'log').map((e) => e.chunk).join('')).toContain('###PLAN_COMPLETE###');
  });

  it('keeps one shell across commands, and restart: true gives a new one', async () => {
    await mkdir(join(scratch.dir, 'sub'));
    server.enqueue(
      reply.tool('t1', 'bash', { command: 'cd sub && export RALPH_TEST_VAR=kept' }),
      reply.tool('t2', 'bash', { command: 'pwd; echo "var=$RALPH_TEST_VAR"' }),
      reply.tool('t3', 'bash', { restart: true }),
      reply.tool('t4', 'bash', { command: 'pwd; echo "var=$RALPH_TEST_VAR"' }),
      reply.text(['done']),
    );
    const events = await collect(executor, { cwd: scratch.dir });
    expect(toolResultsOf(2)[0]!.content).toBe(`${join(scratch.dir, 'sub')}\nvar=kept\n`);
    expect(toolResultsOf(3)[0]!.content).toMatch(/restarted/);
    expect(toolResultsOf(4)[0]!.content).toBe(`${scratch.dir}\nvar=\n`);
    expect(ofType(events, 'tool').map((e) => e.summary)).toEqual([
      '$ cd sub && export RALPH_TEST_VAR=kept',
      '$ pwd; echo "var=$RALPH_TEST_VAR"',
      'restart',
      '$ pwd; echo "var=$RALPH_TEST_VAR"',
    ]);
  });

  it('reports a non-zero exit code in the result and as the tool error', async () => {
    const { events, result } = await roundTrip('bash', { command: 'echo out; echo broken >&2; exit_code_test() { return 3; }; exit_code_test' });
    expect(result.is_error).toBeUndefined();
    expect(result.content).toBe('out\nbroken\n[exit code 3]');
    expect(ofType(events, 'tool')[0]!.error).toBe('exit code 3: broken');
  });

  it('stops a command past its timeout, kills its process group and says so', async () => {
    await executor.close();
    executor = createAnthropicExecutor({ apiKey: FAKE_KEY, baseURL: server.url, commandTimeoutMs: 300 });
    const { events, result } = await roundTrip('bash', { command: 'echo $$ > shell.pid; sleep 30 & echo $! > child.pid; wait' });
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/timed out after 300ms and was stopped; the bash session was restarted/);
    expect(ofType(events, 'tool')[0]!.error).toMatch(/timed out/);
    const shellPid = Number(await readFile(join(scratch.dir, 'shell.pid'), 'utf8'));
    const childPid = Number(await readFile(join(scratch.dir, 'child.pid'), 'utf8'));
    await expect.poll(() => alive(shellPid), { timeout: PATIENCE_MS }).toBe(false);
    await expect.poll(() => alive(childPid), { timeout: PATIENCE_MS }).toBe(false);
  });

  it('does not hand the API key to the shell, by name or under another name', async () => {
    const saved = { ...process.env };
    process.env['ANTHROPIC_API_KEY'] = 'sk-ant-other-KEY456';
    process.env['ANTHROPIC_AUTH_TOKEN'] = 'token-789-abcdef';
    process.env['MY_COPY_OF_THE_KEY'] = FAKE_KEY;
    try {
      const { result } = await roundTrip('bash', {
        command: 'echo "[$ANTHROPIC_API_KEY][$ANTHROPIC_AUTH_TOKEN][$MY_COPY_OF_THE_KEY]"; echo "home=${HOME:+set}"',
      });
      expect(result.content).toBe('[][][]\nhome=set\n');
    } finally {
      for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'MY_COPY_OF_THE_KEY']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });

  it('reports a shell that cannot start as a tool error, not a crash', async () => {
    server.enqueue(reply.tool('t1', 'bash', { command: 'echo hi' }), reply.text(['ok']));
    const events = await collect(executor, { cwd: join(scratch.dir, 'does-not-exist') });
    expect(toolResultsOf(1)[0]).toMatchObject({ is_error: true, content: expect.stringMatching(/bash could not be started/) });
    expect(events.at(-1)).toEqual({ type: 'exit', code: 0 });
  });

  it('keeps the shell across iterations of one conversation, and replaces it for a fresh one', async () => {
    const shellPid = async (fresh: boolean, iteration: number): Promise<number> => {
      server.enqueue(reply.tool(`t${iteration}`, 'bash', { command: 'echo $$' }), reply.text(['ok']));
      await collect(executor, { cwd: scratch.dir, fresh, iteration });
      return Number(toolResultsOf(server.requests.length - 1)[0]!.content.trim());
    };
    const first = await shellPid(true, 1);
    expect(await shellPid(false, 2)).toBe(first);
    const third = await shellPid(true, 3);
    expect(third).not.toBe(first);
    expect(alive(first)).toBe(false);
    expect(alive(third)).toBe(true);
    await executor.close();
    await expect.poll(() => alive(third), { timeout: PATIENCE_MS }).toBe(false);
  });

  it('gives the shell the RALPH_* environment of the current iteration', async () => {
    server.enqueue(reply.tool('t1', 'bash', { command: 'echo "it=$RALPH_ITERATION"' }), reply.text(['one']));
    await collect(executor, { cwd: scratch.dir, env: { RALPH_ITERATION: '1' } });
    server.enqueue(reply.tool('t2', 'bash', { command: 'echo "it=$RALPH_ITERATION"' }), reply.text(['two']));
    await collect(executor, { cwd: scratch.dir, env: { RALPH_ITERATION: '2' }, fresh: false, iteration: 2 });
    expect(toolResultsOf(1)[0]!.content).toBe('it=1\n');
    expect(toolResultsOf(3)[0]!.content).toBe('it=2\n');
  });
});

describe('text editor tool', () => {
  beforeEach(async () => {
    await writeFile(join(scratch.dir, 'a.txt'), 'one\ntwo\nthree\nfour\n');
    await mkdir(join(scratch.dir, 'src', 'deep', 'deeper'), { recursive: true });
    await writeFile(join(scratch.dir, 'src', 'main.ts'), 'x');
    await writeFile(join(scratch.dir, 'src', 'deep', 'deeper', 'hidden-by-depth.ts'), 'x');
    await writeFile(join(scratch.dir, '.secret'), 'x');
  });

  it('views a file with line numbers', async () => {
    const { events, result } = await roundTrip(EDITOR, { command: 'view', path: 'a.txt' });
    expect(result.content).toBe('     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour\n');
    expect(ofType(events, 'tool')).toEqual([{ type: 'tool', name: EDITOR, summary: 'view a.txt' }]);
  });

  it('views a line range (end -1 = to the end)', async () => {
    server.enqueue(
      reply.tool('t1', EDITOR, { command: 'view', path: 'a.txt', view_range: [2, 3] }),
      reply.tool('t2', EDITOR, { command: 'view', path: 'a.txt', view_range: [3, -1] }),
      reply.text(['ok']),
    );
    await collect(executor, { cwd: scratch.dir });
    expect(toolResultsOf(1)[0]!.content).toBe('     2\ttwo\n     3\tthree\n');
    expect(toolResultsOf(2)[0]!.content).toBe('     3\tthree\n     4\tfour\n');
  });

  it('lists a directory two levels deep without hidden entries', async () => {
    const { result } = await roundTrip(EDITOR, { command: 'view', path: '.' });
    const lines = result.content.trim().split('\n').slice(1);
    expect(lines).toEqual(['a.txt', 'src/', 'src/deep/', 'src/main.ts']);
  });

  it('creates a file, with its folders', async () => {
    const { result } = await roundTrip(EDITOR, { command: 'create', path: 'new/dir/b.txt', file_text: 'hello\n' });
    expect(result.is_error).toBeUndefined();
    expect(await readFile(join(scratch.dir, 'new/dir/b.txt'), 'utf8')).toBe('hello\n');
  });

  it('replaces text that matches exactly once', async () => {
    const { result } = await roundTrip(EDITOR, { command: 'str_replace', path: 'a.txt', old_str: 'two\n', new_str: 'TWO\n' });
    expect(result.is_error).toBeUndefined();
    expect(result.content).toContain('     2\tTWO');
    expect(await readFile(join(scratch.dir, 'a.txt'), 'utf8')).toBe('one\nTWO\nthree\nfour\n');
  });

  it('refuses a replacement that matches nowhere, and says so', async () => {
    const { events, result } = await roundTrip(EDITOR, { command: 'str_replace', path: 'a.txt', old_str: 'five', new_str: 'x' });
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/did not appear verbatim in a\.txt/);
    expect(ofType(events, 'tool')[0]!.error).toMatch(/did not appear verbatim/);
    expect(await readFile(join(scratch.dir, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\nfour\n');
  });

  it('refuses a replacement that matches more than once, naming the lines', async () => {
    const { result } = await roundTrip(EDITOR, { command: 'str_replace', path: 'a.txt', old_str: 'o', new_str: '0' });
    expect(result.is_error).toBe(true);
    expect(result.content).toMatch(/appears 3 times in a\.txt \(lines 1, 2, 4\)/);
    expect(await readFile(join(scratch.dir, 'a.txt'), 'utf8')).toBe('one\ntwo\nthree\nfour\n');
  });

  it('inserts with insert_text and with new_str', async () => {
    server.enqueue(
      reply.tool('t1', EDITOR, { command: 'insert', path: 'a.txt', insert_line: 0, insert_text: 'zero' }),
      reply.tool('t2', EDITOR, { command: 'insert', path: 'a.txt', insert_line: 3, new_str: 'two and a half\n' }),
      reply.text(['ok']),
    );
    await collect(executor, { cwd: scratch.dir });
    expect(toolResultsOf(1)[0]!.is_error).toBeUndefined();
    expect(toolResultsOf(2)[0]!.is_error).toBeUndefined();
    expect(await readFile(join(scratch.dir, 'a.txt'), 'utf8')).toBe('zero\none\ntwo\ntwo and a half\nthree\nfour\n');
  });

  it('refuses paths that escape the working directory, without touching them', async () => {
    const outside = await scratchDir();
    try {
      await writeFile(join(outside.dir, 'target.txt'), 'outside\n');
      await symlink(outside.dir, join(scratch.dir, 'link-out'));
      const attempts = [
        { command: 'view', path: '../outside.txt' },
        { command: 'view', path: join(outside.dir, 'target.txt') },
        { command: 'create', path: join('link-out', 'created.txt'), file_text: 'x' },
        { command: 'str_replace', path: join('link-out', 'target.txt'), old_str: 'outside', new_str: 'changed' },
      ];
      server.enqueue(...attempts.map((input, i) => reply.tool(`t${i}`, EDITOR, input)), reply.text(['ok']));
      const events = await collect(executor, { cwd: scratch.dir });
      for (let i = 1; i <= attempts.length; i++) {
        const result = toolResultsOf(i)[0]!;
        expect(result.is_error).toBe(true);
        expect(result.content).toMatch(/outside the working directory/);
      }
      expect(ofType(events, 'tool').every((e) => e.error?.includes('outside the working directory'))).toBe(true);
      expect(await readFile(join(outside.dir, 'target.txt'), 'utf8')).toBe('outside\n');
      await expect(readFile(join(outside.dir, 'created.txt'))).rejects.toThrow();
    } finally {
      await outside.cleanup();
    }
  });

  it('answers an unknown tool or a bad input with an error result, not a crash', async () => {
    server.enqueue(
      reply.tool('t1', 'computer', { action: 'screenshot' }),
      reply.tool('t2', EDITOR, { command: 'undo_edit', path: 'a.txt' }),
      reply.tool('t3', 'bash', {}),
      reply.text(['ok']),
    );
    const events = await collect(executor, { cwd: scratch.dir });
    expect(toolResultsOf(1)[0]).toMatchObject({ is_error: true, content: expect.stringMatching(/unknown tool "computer"/) });
    expect(toolResultsOf(2)[0]).toMatchObject({ is_error: true, content: expect.stringMatching(/unknown editor command "undo_edit"/) });
    expect(toolResultsOf(3)[0]).toMatchObject({ is_error: true, content: expect.stringMatching(/bash needs `command`/) });
    expect(ofType(events, 'exit')).toEqual([{ type: 'exit', code: 0 }]);
  });
});
