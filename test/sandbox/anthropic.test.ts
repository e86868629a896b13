// The anthropic executor's bash tool in ralph's sandbox (docs/sandbox.md): ralph itself talks to
// the API (a loopback stand-in here); the shell may write the tree, not ~/.bashrc, and reaches no
// host at all, not even the API's.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FakeMessagesServer, reply } from '../executors/anthropic/fake-messages-server.js';
import { FAKE_KEY } from '../executors/anthropic/helpers.js';
import { sandboxDepsAvailable } from './helpers.js';
import { BIN } from '../helpers/run-ralph.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const tempDir = tempDirs();

const PLAN = ['---', 'id: tools', 'max_iterations: 2', '---', '# Tools', '', '<tasks>', '<task><name>Task 1</name><action>Work.</action></task>', '</tasks>', ''].join('\n');

describe.runIf(sandboxDepsAvailable())('--executor anthropic --sandbox on', () => {
  it("the bash tool writes the tree, not ~/.bashrc, and reaches no host; ralph's own API calls go on", async () => {
    const base = tempDir('ralph-sandbox-anthropic-');
    const home = join(base, 'home');
    const dir = join(base, 'work');
    mkdirSync(home);
    mkdirSync(dir);
    writeFileSync(join(home, '.bashrc'), '# mine\n');
    writeFileSync(join(dir, 'plan.md'), PLAN);
    const summary = JSON.stringify({ plan: 'tools', status: 'complete', tasks: [{ name: 'Task 1', status: 'done' }] });
    const server = await FakeMessagesServer.start();
    try {
      const probe = `node -e "require('http').get(process.env.ANTHROPIC_BASE_URL || '${server.url}', r => console.log('reached', r.statusCode)).on('error', e => console.log('unreached', e.code))"`;
      server.enqueue(
        reply.tool('t1', 'bash', { command: `echo in-tree > a.txt; echo x >> ~/.bashrc; echo "bashrc exit $?"; ${probe}` }),
        reply.tool('t2', 'str_replace_based_edit_tool', { command: 'create', path: 'plan.summary.json', file_text: summary }),
        reply.text(['Done.\n###PLAN_COMPLETE###']),
      );
      const requestsBefore = server.requests.length;
      const out = await new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = spawn(process.execPath, [BIN, 'exec', 'plan.md', '--executor', 'anthropic', '--sandbox', 'on', '--quiet'], {
          cwd: dir,
          env: { ...process.env, HOME: home, ANTHROPIC_API_KEY: FAKE_KEY, ANTHROPIC_BASE_URL: server.url },
        });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        child.on('close', (code) => done({ code, stderr }));
      });
      expect(out.code, out.stderr).toBe(0);
      expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('in-tree\n');
      expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('# mine\n');
      // What the tool answered the model: the write refused, the API not reached from inside.
      const toolResult = JSON.stringify(server.requests[requestsBefore + 1]?.body.messages.at(-1));
      expect(toolResult).toMatch(/bashrc exit 1/);
      expect(toolResult).toMatch(/unreached|reached 403/);
      const runs = join(dir, '.ralph', 'runs');
      const result = JSON.parse(readFileSync(join(runs, readdirSync(runs)[0]!, 'result.json'), 'utf8'));
      expect(result.sandbox.mode).toBe('on');
      expect(result.sandbox.refusals.map((r: { target: string }) => r.target)).toContain(join(home, '.bashrc'));
    } finally {
      await server.close();
    }
  });
});
