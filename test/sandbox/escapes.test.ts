// The held-out bar of docs/sandbox.md, through the built CLI with real bubblewrap: a scripted agent
// under `ralph exec --sandbox on` tries six ways out (a file outside the tree, ~/.bashrc,
// .git/hooks/pre-commit, a secret under ~/.ssh, a TCP connection to a local server that is not
// allowed, its own run's result.json), then does its work. Every escape fails and is reported,
// the plan completes, the allowed API host (a local stand-in) is reached and the other is not.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runRalph } from '../helpers/run-ralph.js';
import { pathWithoutBwrap as noBwrapPath, recordingServer, sandboxDepsAvailable, type Recorder } from './helpers.js';

const AGENT = join(ROOT, 'test/fixtures/agents/sandbox-escapes.mjs');
const PLAN = ['---', 'id: escapes', 'verify: ["echo from-verify > ../outside/verify.txt; true"]', '---', '# Escapes', '', '<tasks>', '<task><name>Task 1</name><action>Try the escapes.</action></task>', '</tasks>', ''].join('\n');
const SECRET = 'PRIVATE-KEY-d41d8cd98f00b204';

const temp: string[] = [];
afterAll(() => {
  for (const dir of temp.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function workspace() {
  const base = mkdtempSync(join(tmpdir(), 'ralph-sandbox-e2e-'));
  temp.push(base);
  const home = join(base, 'home');
  const repo = join(base, 'repo');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), `${SECRET}\n`);
  writeFileSync(join(home, '.bashrc'), '# the user\'s own\n');
  mkdirSync(join(base, 'outside'));
  mkdirSync(repo);
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
  git('init', '-q');
  git('config', 'user.email', 'test@ralph.invalid');
  git('config', 'user.name', 'test');
  writeFileSync(join(repo, 'plan.md'), PLAN);
  git('add', '.');
  git('commit', '-qm', 'plan');
  return { base, home, repo };
}

const runnable = sandboxDepsAvailable();

describe.runIf(runnable)('ralph exec --sandbox on: six escapes', () => {
  let api: Recorder;
  let other: Recorder;
  beforeAll(async () => {
    api = await recordingServer();
    other = await recordingServer();
  });
  afterAll(async () => {
    await api.close();
    await other.close();
  });

  it('every escape fails and is reported in result.json; the plan completes; only the allowed host is reached', async () => {
    const { base, home, repo } = workspace();
    const run = await runRalph(['exec', 'plan.md', '--sandbox', 'on', '--max-iterations', '2', '--', process.execPath, AGENT], {
      cwd: repo,
      env: {
        HOME: home,
        ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.port}`,
        ESCAPE_OUTSIDE: join(base, 'outside', 'escape.txt'),
        ESCAPE_PORT: String(other.port),
        NO_COLOR: '1',
      },
    });
    const why = `${run.stdout}\n${run.stderr}`;
    expect(run.code, why).toBe(0);

    // The file system, afterwards.
    expect(existsSync(join(base, 'outside', 'escape.txt')), why).toBe(false);
    expect(existsSync(join(base, 'outside', 'verify.txt')), 'a verify command wrote outside the tree').toBe(false);
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe("# the user's own\n");
    expect(existsSync(join(repo, '.git', 'hooks', 'pre-commit'))).toBe(false);
    expect(why).not.toContain(SECRET);
    const runs = readdirSync(join(repo, '.ralph', 'runs'));
    const runDir = join(repo, '.ralph', 'runs', runs[0]!);
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8'));
    expect(result.outcome).toBe('complete');
    const transcript = readFileSync(join(runDir, 'iterations', '1.log'), 'utf8');
    expect(transcript).not.toContain(SECRET);
    expect(transcript).toContain('api: 200');

    // The servers: the API stand-in was reached through the sandbox's proxy, the other never.
    expect(api.hits).toContain('GET /v1/work');
    expect(other.hits).toEqual([]);

    // Every escape is in result.json.
    const refused = (what: string, target: string) => result.sandbox.refusals.some((r: { what: string; target: string }) => r.what === what && r.target === target);
    expect(result.sandbox.mode).toBe('on');
    expect(refused('write', join(base, 'outside', 'escape.txt')), JSON.stringify(result.sandbox)).toBe(true);
    expect(refused('write', join(home, '.bashrc'))).toBe(true);
    expect(refused('write', join(repo, '.git', 'hooks', 'pre-commit'))).toBe(true);
    expect(refused('read', join(home, '.ssh', 'id_ed25519'))).toBe(true);
    expect(refused('network', `127.0.0.1:${other.port}`)).toBe(true);
    expect(refused('write', join(runDir, 'result.json'))).toBe(true);
    expect(refused('write', join(base, 'outside', 'verify.txt'))).toBe(true);
    expect(result.sandbox.denied).toBeGreaterThanOrEqual(7);

    // Seen on the terminal, one line each, and as events.
    expect(run.stderr).toMatch(/warning: sandbox refused a write to .*\.bashrc by the agent/);
    expect(run.stderr).toMatch(/warning: sandbox refused a write to .*verify\.txt by a verify command/);
    const events = readFileSync(join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(events.filter((e) => e.type === 'sandbox_denied').length).toBeGreaterThanOrEqual(7);
  });
});

describe.runIf(runnable)('a machine without bubblewrap', () => {
  function pathWithoutBwrap(): string {
    const dir = noBwrapPath();
    temp.push(dir);
    return dir;
  }

  it('--sandbox on: exit 64 with one line naming what to install; nothing ran', async () => {
    const { home, repo } = workspace();
    const run = await runRalph(['exec', 'plan.md', '--sandbox', 'on', '--', process.execPath, AGENT], { cwd: repo, env: { HOME: home, PATH: pathWithoutBwrap() } });
    expect(run.code, run.stderr).toBe(64);
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/install bubblewrap/);
    expect(lines[0]).toMatch(/apt-get install bubblewrap/);
    expect(existsSync(join(repo, '.ralph', 'runs'))).toBe(false);
  });

  it('--sandbox auto (the default): the run goes on, with one warning at the start naming what to install', async () => {
    const { home, repo } = workspace();
    writeFileSync(join(repo, 'agent.mjs'), "import { readFileSync, writeFileSync } from 'node:fs';\nreadFileSync(0);\nwriteFileSync(process.env.RALPH_SUMMARY, JSON.stringify({ plan: 'escapes', status: 'complete', tasks: [{ name: 'Task 1', status: 'done' }] }));\nconsole.log('###PLAN_COMPLETE###');\n");
    // RALPH_SANDBOX unset: the default applies (the suite sets it off for the other tests).
    const run = await runRalph(['exec', 'plan.md', '--', process.execPath, 'agent.mjs'], { cwd: repo, env: { HOME: home, PATH: pathWithoutBwrap(), RALPH_SANDBOX: '' } });
    expect(run.code, run.stderr).toBe(0);
    const warnings = run.stderr.split('\n').filter((l) => /WITHOUT a sandbox/.test(l));
    expect(warnings, run.stderr).toHaveLength(1);
    expect(warnings[0]).toMatch(/install bubblewrap/);
    const runs = readdirSync(join(repo, '.ralph', 'runs'));
    const result = JSON.parse(readFileSync(join(repo, '.ralph', 'runs', runs[0]!, 'result.json'), 'utf8'));
    expect(result.sandbox).toEqual({ mode: 'off', denied: 0, refusals: [] });
  });
});
