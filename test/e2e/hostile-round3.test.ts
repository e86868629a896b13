// The third hostile round (docs/hostile.md), through the built CLI: a config file someone else
// planted, hooks and notification commands that leave daemons, a corrupted .ralph/, hostile text
// from files on the terminal, and the small ones (a FIFO as --config, `plans` a file, a plan
// run through a symlink beside itself).
import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertBuilt, makeTempDir, planText, removeTempDirs } from './helpers/exec-harness.js';
import { ralph, startRalph, waitFor } from './longrun-helpers/index.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

const WRITE_SUMMARY = `printf '{"plan":"test","status":"complete","tasks":[{"name":"Task 1","status":"done"}]}' > "$RALPH_SUMMARY"`;
const COMPLETE_AGENT = ['sh', '-c', `cat > /dev/null; ${WRITE_SUMMARY}; echo '###PLAN_COMPLETE###'`];

/** What `p` gives, or undefined if it takes longer than `ms` (it hung). */
function within<T>(ms: number, p: Promise<T>): Promise<T | undefined> {
  return Promise.race([p, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);
}

/** A folder no user-level safe-dirs file is read from. */
function noUserConfig(): Record<string, string> {
  return { XDG_CONFIG_HOME: makeTempDir() };
}

describe.concurrent('a config file someone else planted', () => {
  it('found in a folder anyone can write, its hook does not run: exit 64 naming the file; listed in RALPH_SAFE_DIRS it runs, and the run says so', async ({ expect }) => {
    const shared = makeTempDir();
    chmodSync(shared, 0o1777);
    const work = join(shared, 'work');
    mkdirSync(work);
    writeFileSync(join(work, 'plan.md'), planText());
    const planted = join(shared, 'ralph.config.yaml');
    writeFileSync(planted, `hooks:\n  before_iteration: touch ${join(shared, 'PWNED')}\n`);
    const refused = await ralph(['exec', 'plan.md', '--', ...COMPLETE_AGENT], { cwd: work, env: noUserConfig() });
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain(`refusing the config file ${planted}`);
    expect(refused.stderr).toContain('can be written by others');
    expect(refused.stderr).toContain(`RALPH_SAFE_DIRS=${shared}`);
    expect(execFileSync('ls', [shared], { encoding: 'utf8' })).not.toContain('PWNED');

    const trusted = await ralph(['exec', 'plan.md', '--', ...COMPLETE_AGENT], { cwd: work, env: { ...noUserConfig(), RALPH_SAFE_DIRS: shared } });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stderr).toContain(`; config ${planted})`);
    expect(execFileSync('ls', [shared], { encoding: 'utf8' })).toContain('PWNED');
  });

  it('--config naming a FIFO is refused at once (exit 64), not waited on', async ({ expect }) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'plan.md'), planText());
    execFileSync('mkfifo', [join(dir, 'fifo.yaml')]);
    const ran = await within(15_000, ralph(['exec', 'plan.md', '--config', 'fifo.yaml', '--', 'true'], { cwd: dir }));
    expect(ran, 'ralph hung on a FIFO named by --config').toBeDefined();
    expect(ran!.code).toBe(64);
    expect(ran!.stderr).toContain('it is a FIFO (named pipe)');
  });
});

describe.concurrent('hooks and notification commands that start daemons', () => {
  it('a before_iteration hook (timeout 1s) and a notify command that start `setsid sleep` hold ralph no longer than their bounds; the daemons are stopped and named', async ({ expect }) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'plan.md'), planText());
    const tag = `${60 + Math.random()}`.slice(0, 12);
    writeFileSync(
      join(dir, 'ralph.config.yaml'),
      [
        'hooks:',
        '  before_iteration:',
        `    - run: setsid sleep ${tag} & sleep ${tag}`,
        '      timeout: 1s',
        '  on_outcome:',
        `    - run: setsid sleep ${tag} & echo done`,
        'notify:',
        `  - command: setsid sleep ${tag} & echo sent`,
        '',
      ].join('\n'),
    );
    const ran = await within(25_000, ralph(['exec', 'plan.md', '--', ...COMPLETE_AGENT], { cwd: dir, env: noUserConfig() }));
    expect(ran, 'ralph was held by a daemon').toBeDefined();
    expect(ran!.code, ran!.stderr).toBe(0);
    expect(ran!.stderr).toMatch(/before_iteration hook was stopped after 1s \(its timeout\); stopped \d processes: .*sleep \(pid \d+\)/);
    expect(ran!.stderr).toMatch(/on_outcome hook left processes running when it exited; stopped 1 process: sleep \(pid \d+\)/);
    expect(ran!.stderr).toMatch(/notification "ended" to notify\[0\] command: the command left processes running when it exited; stopped 1 process: sleep/);
    expect(execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' })).not.toContain(`sleep ${tag}`);
  });
});

describe.concurrent('a corrupted .ralph/ (the agent can reach it)', () => {
  it('ralph runs and ralph status list a symlink loop, wrong types in result.json and a name with an escape as unreadable, with the reason, and show the rest; runs/ a file is said too', async ({ expect }) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'plan.md'), planText());
    const first = await ralph(['exec', 'plan.md', '--', ...COMPLETE_AGENT], { cwd: dir });
    expect(first.code, first.stderr).toBe(0);
    const runs = join(dir, '.ralph', 'runs');
    const good = readdirSync(runs)[0]!;
    // A copy of the good run whose result.json has the wrong types, a symlink loop, a name with OSC 0.
    const bad = '20991231-235959-bad0';
    cpSync(join(runs, good), join(runs, bad), { recursive: true });
    const result = JSON.parse(readFileSync(join(runs, bad, 'result.json'), 'utf8'));
    writeFileSync(join(runs, bad, 'result.json'), JSON.stringify({ ...result, run: bad, costUsd: '12', startedAt: 5 }));
    symlinkSync('loop', join(runs, 'loop'));
    mkdirSync(join(runs, '20991231-235958-\x1b]0;owned\x07'));

    const listed = await ralph(['runs'], { cwd: dir });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toMatch(new RegExp(`${good}\\s+test\\s+complete`));
    expect(listed.stdout).toContain(`${join(runs, 'loop')}: a symbolic link loop (ELOOP)`);
    expect(listed.stdout).toContain(`${join(runs, bad)}: result.json: costUsd is a string, expected a number or null`);
    expect(listed.stdout).toContain('its name holds control characters');
    expect(listed.stdout).not.toContain('\x1b');

    const latest = await ralph(['status'], { cwd: dir });
    expect(latest.code, latest.stderr).toBe(0);
    expect(latest.stdout).toContain('health     unreadable: result.json: costUsd is a string, expected a number or null');
    const named = await ralph(['status', good, '--json'], { cwd: dir });
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ run: good, health: 'complete' });

    rmSync(runs, { recursive: true });
    writeFileSync(runs, 'not a folder');
    const file = await ralph(['runs'], { cwd: dir });
    expect(file.code, file.stderr).toBe(0);
    expect(file.stdout).toContain(`${runs}: not a folder`);
    const status = await ralph(['status'], { cwd: dir });
    expect(status.code).toBe(64);
    expect(status.stderr).toContain(`no runs can be read: ${runs} is not a folder`);
  });
});

describe.concurrent('text from files reaches the terminal only through the sanitizer', () => {
  it("ralph config plan.md with OSC 52 and OSC 0 in the plan's model:, a config key with an escape in an error, a plan key with one in validate's warning", async ({ expect }) => {
    const dir = makeTempDir();
    const hostile = '\\e]52;c;aGVsbG8=\\a\\e]0;pwned\\a';
    writeFileSync(join(dir, 'plan.md'), planText({ frontMatter: [`model: "gpt${hostile}"`, `"odd${hostile}": 1`] }));
    const shown = await ralph(['config', 'plan.md'], { cwd: dir, env: noUserConfig() });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/model\s+gpt\s/);
    const json = await ralph(['config', 'plan.md', '--json'], { cwd: dir, env: noUserConfig() });
    expect(JSON.parse(json.stdout).settings.find((s: { setting: string }) => s.setting === 'model').value).toBe('gpt\x1b]52;c;aGVsbG8=\x07\x1b]0;pwned\x07');
    const validated = await ralph(['validate', 'plan.md'], { cwd: dir });
    expect(validated.stderr).toContain('odd');
    writeFileSync(join(dir, 'ralph.config.yaml'), `defaults:\n  "max_${hostile}": 3\n`);
    const refused = await ralph(['config', 'plan.md'], { cwd: dir, env: noUserConfig() });
    expect(refused.code).toBe(64);
    expect(refused.stderr).toContain('unknown key "max_" in defaults');
    for (const out of [shown, json, validated, refused]) expect(out.stdout + out.stderr).not.toMatch(/[\x07\x1b\x9b]/);
  });
});

describe.concurrent('the small ones', () => {
  it('ralph init where plans is a regular file: exit 64 naming it, nothing written', async ({ expect }) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'plans'), 'a file');
    const ran = await ralph(['init'], { cwd: dir });
    expect(ran.code, ran.stderr).toBe(64);
    expect(ran.stderr).toContain('plans is a regular file, not a folder: ralph init cannot write into it');
    expect(readdirSync(dir)).toEqual(['plans']);
  });

  it('ralph exec link.md (a symbolic link to plan.md) while plan.md runs is refused: the lock is keyed on the real path', async ({ expect }) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'plan.md'), planText());
    symlinkSync('plan.md', join(dir, 'link.md'));
    const started = join(dir, 'agent-started');
    const first = startRalph(['exec', 'plan.md', '--', 'sh', '-c', `touch ${started}; exec sleep 30`], { cwd: dir });
    try {
      await waitFor(() => existsSync(started), 'the first run to start its agent');
      const second = await ralph(['exec', 'link.md', '--', 'true'], { cwd: dir });
      expect(second.code, second.stderr).toBe(64);
      expect(second.stderr).toMatch(/plan test is already running/);
    } finally {
      first.child.kill('SIGTERM');
      await first.done;
    }
  });
});

