// A slow reader behind `ralph exec` (docs/hostile.md "Slow readers"): memory stays bounded, agent
// output that cannot be shown in time is dropped with a note (the transcript keeps all of it),
// and no write error ends the run.
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, onTestFinished } from 'vitest';
import { assertBuilt, makeTempDir, planText, RALPH_BIN, removeTempDirs, ROOT } from './helpers/exec-harness.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

const AGENT = join(ROOT, 'test', 'fixtures', 'longrun', 'gigabyte-agent.mjs');
const BYTES = 300 * 1024 * 1024;

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

it('300 MB of agent output behind a reader that reads nothing for a while: bounded memory, a note, a complete run', async () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'plan.md'), planText({ id: 'flood' }));
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.ANTHROPIC_API_KEY;
  const child = spawn(process.execPath, [RALPH_BIN, 'exec', 'plan.md', '--max-log', '1GB', '--', process.execPath, AGENT, String(BYTES), 'flood'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The reader of ralph's display (stderr, where the agent's output is shown) reads nothing
  // until the agent has written everything, then all of it. stdout stays empty without --json.
  child.stderr.pause();
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(child.pid!))), 50);
  const transcript = () => {
    try {
      const runs = join(dir, '.ralph', 'runs');
      return statSync(join(runs, readdirSync(runs)[0]!, 'iterations', '1.log')).size;
    } catch {
      return 0;
    }
  };
  const deadline = Date.now() + 90_000;
  while (transcript() < BYTES * 0.98 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d.length > 4096 ? d.slice(0, 2048) + d.slice(-2048) : d));
  child.stderr.resume();
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearInterval(sampler);
  expect(stderr).not.toMatch(/internal error|ENOBUFS/);
  expect(code, stderr.slice(-2000)).toBe(0);
  expect(peak, `peak RSS ${peak.toFixed(0)} MiB`).toBeLessThan(200);
  expect(stderr).toMatch(/bytes of the agent's output were not shown here because the output was read too slowly/);
  expect(stdout).toBe('');
});

// A guard on the goal rather than a reproduction: on this machine a pty read by script(1) took
// output as fast as ralph wrote it, and memory stayed bounded before the change as well.
it('on a terminal (a pty through script(1)), 150 MB of agent output keeps memory bounded', async () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'plan.md'), planText({ id: 'flood' }));
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', TERM: 'xterm' };
  delete env.ANTHROPIC_API_KEY;
  const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  const inner = [process.execPath, RALPH_BIN, 'exec', 'plan.md', '--max-log', '1GB', '--', process.execPath, AGENT, String(BYTES / 2), 'flood'].map(sh).join(' ');
  const child = spawn('script', ['-qfec', inner, '/dev/null'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (tail = (tail + d).slice(-4096)));
  let peak = 0;
  const ralphPid = (): number | undefined => {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        if (argv[0] === process.execPath && argv[1] === RALPH_BIN && readFileSync(`/proc/${entry}/environ`, 'utf8').includes(dir)) return Number(entry);
      } catch {
        // gone
      }
    }
    return undefined;
  };
  let pid: number | undefined;
  const sampler = setInterval(() => {
    pid ??= ralphPid();
    if (pid !== undefined) peak = Math.max(peak, rssMiB(pid));
  }, 50);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  clearInterval(sampler);
  expect(pid, 'ralph was found running').toBeDefined();
  expect(code, tail).toBe(0);
  expect(peak, `peak RSS ${peak.toFixed(0)} MiB`).toBeLessThan(200);
});

// The transcript is written in chunks (docs/files.md#transcripts): a ralph killed by SIGKILL while
// its agent is quiet leaves a log that holds every byte the agent wrote, in order, nothing torn.
it('SIGKILL while the agent is quiet: iterations/1.log holds all its output so far, whole', async () => {
  const dir = makeTempDir();
  writeFileSync(join(dir, 'plan.md'), planText({ id: 'killed' }));
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  delete env.ANTHROPIC_API_KEY;
  // Many small writes (one a line), then silence.
  const agent = "let i = 0; const next = () => { if (i < 3000) { process.stdout.write(`line ${i++}\\n`); setImmediate(next); } else { process.stdout.write('END\\n'); setInterval(() => {}, 1000); } }; next();";
  const child = spawn(process.execPath, [RALPH_BIN, 'exec', 'plan.md', '--quiet', '--', process.execPath, '-e', agent], { cwd: dir, env, stdio: 'ignore' });
  const expected = `${Array.from({ length: 3000 }, (_, i) => `line ${i}\n`).join('')}END\n`;
  const runs = join(dir, '.ralph', 'runs');
  const log = () => {
    try {
      return readFileSync(join(runs, readdirSync(runs)[0]!, 'iterations', '1.log'), 'utf8');
    } catch {
      return '';
    }
  };
  // Waits for the content itself (the test's own timeout bounds it); ralph goes whatever happens.
  onTestFinished(() => {
    child.kill('SIGKILL');
    try {
      const state = JSON.parse(readFileSync(join(runs, readdirSync(runs)[0]!, 'state.json'), 'utf8')) as { executorPid: number | null };
      if (state.executorPid) process.kill(-state.executorPid, 'SIGKILL');
    } catch {
      // no run, or the agent is gone
    }
  });
  while (!log().endsWith('END\n')) await new Promise((r) => setTimeout(r, 50));
  child.kill('SIGKILL');
  await new Promise((r) => child.on('close', r));
  expect(log()).toBe(expected);
});
