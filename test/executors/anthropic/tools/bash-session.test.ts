import { afterEach, describe, expect, it } from 'vitest';
import { BashSession, shellQuote } from '../../../../src/executors/anthropic/tools/bash-session.js';
import { alive, scratchDir } from '../helpers.js';
import { PATIENCE_MS } from '../../../helpers/patience.js';

// These tests follow the shell's processes by the pids it prints ($$, $!), which are host pids only
// outside a PID namespace; the namespaced shell is tested in test/e2e/anthropic-key.test.ts.
process.env.RALPH_NO_PID_NAMESPACE = '1';

const sessions: BashSession[] = [];
let scratch: { dir: string; cleanup: () => Promise<void> } | undefined;
async function session(extra: { timeoutMs?: number; outputLimit?: number; shell?: { program: string; args: string[]; env: Record<string, string> } } = {}): Promise<BashSession> {
  scratch = await scratchDir();
  const s = new BashSession({ cwd: scratch.dir, env: { PATH: process.env['PATH'] ?? '' }, timeoutMs: extra.timeoutMs ?? 5_000, ...extra });
  sessions.push(s);
  return s;
}
afterEach(async () => {
  for (const s of sessions.splice(0)) await s.stop();
  await scratch?.cleanup();
});

describe('bash session', () => {
  it('quotes anything for the shell', () => {
    expect(shellQuote(`it's "$HOME"`)).toBe(`'it'\\''s "$HOME"'`);
  });

  it('separates stdout, stderr and the exit code, keeping output without a final newline as is', async () => {
    const s = await session();
    expect(await s.run('printf abc; printf err >&2; false')).toMatchObject({ stdout: 'abc', stderr: 'err', exitCode: 1, timedOut: false });
  });

  it('reports a syntax error instead of waiting for more input', async () => {
    const s = await session();
    const r = await s.run('echo "unbalanced');
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(/unexpected EOF|syntax error/);
    expect((await s.run('echo still here')).stdout).toBe('still here\n');
  });

  it('gives commands an empty stdin, so reading it cannot swallow the session', async () => {
    const s = await session();
    expect(await s.run('cat; echo after')).toMatchObject({ stdout: 'after\n', exitCode: 0 });
  });

  it('bounds the output, keeping head and tail with a note', async () => {
    const s = await session({ outputLimit: 1_000 });
    const r = await s.run('seq 1 100000');
    expect(r.stdout.length).toBeLessThan(1_300);
    expect(r.stdout.startsWith('1\n2\n3\n')).toBe(true);
    expect(r.stdout.endsWith('99999\n100000\n')).toBe(true);
    expect(r.stdout).toMatch(/output truncated: \d+ characters omitted/);
  });

  it('notices when the shell exits, and starts a new one for the next command', async () => {
    const s = await session();
    const first = s.pid;
    expect(await s.run('echo bye; exit 3')).toMatchObject({ shellExited: true, exitCode: null });
    expect((await s.run('echo hello')).stdout).toBe('hello\n');
    expect(s.pid).not.toBe(first);
  });

  it('stops the whole group on stop(), including children that ignore TERM', async () => {
    const s = await session();
    const r = await s.run(`(trap '' TERM; sleep 30) > /dev/null 2>&1 & echo $!`);
    const child = Number(r.stdout.trim());
    const pgid = s.pid!;
    expect(alive(child)).toBe(true);
    await s.stop();
    await expect.poll(() => alive(child), { timeout: PATIENCE_MS }).toBe(false);
    await expect.poll(() => alive(-pgid), { timeout: PATIENCE_MS }).toBe(false);
  });
});

describe('a shell started through a wrapper (as the sandbox starts it)', () => {
  it('keeps the whole chain from the wrapper down to the shell as its own processes', async () => {
    // `; :` keeps sh from exec'ing bash, so the wrapper stays a process of its own.
    const s = await session({ shell: { program: 'sh', args: ['-c', 'bash --noprofile --norc; :'], env: {} } });
    const inner = Number((await s.run('echo $$')).stdout.trim());
    const wrapper = s.pid!;
    expect(inner).not.toBe(wrapper);
    expect(s.shellPids().sort()).toEqual([wrapper, inner].sort());
  });
});

describe('when ralph exits without closing the session', () => {
  it('kills the session and what it started (exit hook)', async () => {
    const { spawnSync } = await import('node:child_process');
    const { existsSync } = await import('node:fs');
    const { fileURLToPath } = await import('node:url');
    const built = fileURLToPath(new URL('../../../../dist/executors/anthropic/tools/bash-session.js', import.meta.url));
    expect(existsSync(built), `${built} is missing: run npm run build`).toBe(true);
    // A real process that starts a session with a background child, prints its pid and exits.
    const script = `
      const { BashSession } = await import(${JSON.stringify(built)});
      const s = new BashSession({ cwd: process.cwd(), env: process.env, timeoutMs: 5000 });
      const r = await s.run('sleep 30 > /dev/null 2>&1 & echo $!');
      console.log(r.stdout.trim());
      process.exit(0);
    `;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: PATIENCE_MS });
    expect(child.status).toBe(0);
    const pid = Number(child.stdout.trim());
    expect(pid).toBeGreaterThan(0);
    await expect.poll(() => alive(pid), { timeout: PATIENCE_MS }).toBe(false);
  });
});
