// `ralph land`'s checks in the sandbox (docs/deliver.md#checks-in-the-sandbox), through the built
// CLI with real bubblewrap: a land check that writes outside the scratch worktree (a file in the
// test's HOME) and reads a secret is refused both; the branch whose check otherwise passes lands,
// the one whose check fails is unlanded, and both show the refusal in land-report.md and --json.
// Without bubblewrap: `on` refuses (exit 64) before anything lands; `auto` warns once and lands
// unsandboxed, where the same write goes through (what the sandbox stopped above).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runRalph } from '../helpers/run-ralph.js';
import { pathWithoutBwrap as noBwrapPath, sandboxDepsAvailable } from '../sandbox/helpers.js';
import { git, makeRepo } from './helpers.js';

const SECRET = 'PRIVATE-KEY-5f4dcc3b5aa765d6';
// Writes $HOME/escape.txt (refused), reads the key (hidden), writes in the tree (allowed), then
// passes unless the branch brought bad.txt. The write's failure does not end the check by itself.
const CHECK = 'echo escaped > "$HOME/escape.txt"; cat "$HOME/.ssh/id_ed25519"; echo in-tree > tree.txt && cat tree.txt; test ! -e bad.txt';

const temp: string[] = [];
afterAll(() => {
  for (const dir of temp.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setUp(config: string) {
  const r = makeRepo({ 'README.md': 'widgets\n', 'ralph.config.yaml': config });
  temp.push(r.dir);
  const home = join(r.dir, 'home');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_ed25519'), `${SECRET}\n`);
  for (const [name, file] of [
    ['one', 'a.txt'],
    ['two', 'bad.txt'],
  ] as const) {
    git(r.repo, 'checkout', '-q', '-b', name, 'main');
    writeFileSync(join(r.repo, file), `${name}\n`);
    git(r.repo, 'add', '-A');
    git(r.repo, 'commit', '-qm', name);
    git(r.repo, 'checkout', '-q', 'main');
  }
  return { r, home, start: git(r.repo, 'rev-parse', 'main') };
}

interface Report {
  landed: { id: string; checks: { exitCode: number; tail: string }[]; sandbox: { on: boolean; why: string; denied: number; refusals: { what: string; target: string; count: number }[] } }[];
  unlanded: { id: string; reason: string; sandbox: { on: boolean; refusals: { what: string; target: string }[] } }[];
}

const runnable = sandboxDepsAvailable();

describe.runIf(runnable)('ralph land: checks in the sandbox (real bubblewrap)', () => {
  it('a check writing outside the scratch worktree is refused; the passing branch lands, the failing one does not; both reports show it', async () => {
    const { r, home, start } = setUp(`sandbox: on\nland:\n  checks: [${JSON.stringify(CHECK)}]\n`);
    // RALPH_SANDBOX unset: the config file's `sandbox: on` chooses (the suite sets it off).
    const land = await runRalph(['land', 'one', 'two', '--json'], { cwd: r.repo, env: { HOME: home, RALPH_SANDBOX: '' } });
    expect(land.code, land.stderr).toBe(1);
    expect(existsSync(join(home, 'escape.txt'))).toBe(false);
    const report = JSON.parse(land.stdout) as Report;
    expect(report.landed.map((l) => l.id)).toEqual(['one']);
    const one = report.landed[0]!;
    expect(one.checks[0]!.exitCode).toBe(0);
    expect(one.checks[0]!.tail).toContain('in-tree');
    expect(one.checks[0]!.tail).not.toContain(SECRET);
    expect(one.sandbox).toMatchObject({ on: true, why: 'on (from ralph.config.yaml sandbox:)' });
    expect(one.sandbox.refusals).toContainEqual({ what: 'write', target: join(home, 'escape.txt'), count: 1 });
    expect(report.unlanded.map((u) => [u.id, u.reason])).toEqual([['two', expect.stringMatching(/^the land check `.*` exited 1 on the integrated tree; the sandbox refused a write to ~\/escape\.txt/)]]);
    expect(report.unlanded[0]!.sandbox.refusals).toContainEqual(expect.objectContaining({ what: 'write', target: join(home, 'escape.txt') }));
    expect(git(r.repo, 'log', '--format=%s', `${start}..main`)).toBe('one');
    expect(land.stderr).toContain('land: one: warning: sandbox refused a write to ~/escape.txt by a check');
    const md = readFileSync(join(r.repo, '.ralph', 'land', 'main', 'land-report.md'), 'utf8');
    expect(md).toContain('Checks ran in the sandbox, --sandbox on \\(from ralph.config.yaml sandbox:\\); it refused');
    expect(md).toContain(`- write to ${join(home, 'escape.txt')}`);
  });
});

describe.runIf(runnable)('ralph land on a machine without bubblewrap', () => {
  function pathWithoutBwrap(): string {
    const dir = noBwrapPath();
    temp.push(dir);
    return dir;
  }

  it('--sandbox on: exit 64, one line naming what to install, nothing landed; auto: one warning, and the checks run unsandboxed', async () => {
    const { r, home, start } = setUp(`land:\n  checks: [${JSON.stringify(CHECK)}]\n`);
    const PATH = pathWithoutBwrap();
    const on = await runRalph(['land', 'one', 'two', '--sandbox', 'on'], { cwd: r.repo, env: { HOME: home, PATH, RALPH_SANDBOX: '' } });
    expect(on.code, on.stderr).toBe(64);
    const lines = on.stderr.trim().split('\n');
    expect(lines, on.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^ralph: --sandbox on: the sandbox cannot start here \(.*\): install bubblewrap \(Debian\/Ubuntu: apt-get install bubblewrap\)/);
    expect(git(r.repo, 'rev-parse', 'main')).toBe(start);
    expect(existsSync(join(r.repo, '.ralph', 'land'))).toBe(false);

    const auto = await runRalph(['land', 'one', 'two', '--json'], { cwd: r.repo, env: { HOME: home, PATH, RALPH_SANDBOX: '' } });
    expect(auto.code, auto.stderr).toBe(1);
    expect(auto.stderr.split('\n').filter((l) => /WITHOUT a sandbox/.test(l))).toEqual([expect.stringMatching(/^land: warning: running WITHOUT a sandbox: .*install bubblewrap/)]);
    const report = JSON.parse(auto.stdout) as Report;
    expect(report.landed.map((l) => [l.id, l.sandbox.on, l.sandbox.why])).toEqual([['one', false, 'auto (the default)']]);
    // Unsandboxed, the write the sandbox refused above goes through.
    expect(readFileSync(join(home, 'escape.txt'), 'utf8')).toBe('escaped\n');
  });
});
