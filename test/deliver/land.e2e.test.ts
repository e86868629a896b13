// `ralph land` through the built CLI (docs/deliver.md#landing): the held-out bar (three accepted
// plans of a real batch where the third breaks the first's test once both are on the target),
// two branches that conflict, and a landing killed in the middle of a check that resumes.
import { execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runRalph } from '../helpers/run-ralph.js';
import { GitHubStandIn } from './github-stand-in.js';
import { git, makeRepo } from './helpers.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'deliver', 'agent.mjs');

function plan(id: string, behaviour: string, verify: string): string {
  return `---\nmax_iterations: 2\nverify:\n  - ${JSON.stringify(verify)}\n---\n# ${id}\n\n<!-- agent: ${behaviour} -->\n\n<tasks>\n<task><name>only</name><action>do it</action><done>done</done></task>\n</tasks>\n`;
}

async function until(check: () => boolean): Promise<void> {
  // Polls for an event the test causes (a file a check writes); the suite's own timeout bounds it.
  while (!check()) await new Promise((r) => setTimeout(r, 25));
}

/** A branch off main with one commit writing `files`. */
function branch(repo: string, name: string, files: Record<string, string>): void {
  git(repo, 'checkout', '-q', '-b', name, 'main');
  for (const [path, text] of Object.entries(files)) writeFileSync(join(repo, path), text);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-qm', `${name}`);
  git(repo, 'checkout', '-q', 'main');
}

describe('ralph land (built CLI)', () => {
  it('three accepted plans; the third breaks the first one\'s test once both are on main: two land, the third is unlanded with the output, main passes its tests', async () => {
    const r = makeRepo({
      'config.txt': 'mode=safe\n',
      'tests/.keep': '',
      'tests.sh': 'for t in tests/*.sh; do [ -e "$t" ] || continue; sh "$t" || exit 1; done\necho all tests passed\n',
      'ralph.config.yaml': 'land:\n  checks: ["sh tests.sh"]\n',
      'plans/a.md': plan('a', 'write tests/a.sh grep -q mode=safe config.txt || { echo "a: config.txt is not in safe mode"; exit 1; }', 'sh tests/a.sh'),
      'plans/b.md': plan('b', 'write b.txt beta', 'grep -q beta b.txt'),
      'plans/c.md': plan('c', 'write config.txt mode=fast', 'grep -q mode=fast config.txt'),
    });
    const batch = await runRalph(['batch', 'plans', '--out', '.ralph/batches/night', '--isolate', 'worktree', '--', process.execPath, AGENT], { cwd: r.repo });
    expect(batch.code).toBe(0);
    const start = git(r.repo, 'rev-parse', 'main');

    const land = await runRalph(['land', '.ralph/batches/night', '--json'], { cwd: r.repo });
    expect(land.code).toBe(1);
    const report = JSON.parse(land.stdout) as { landed: { id: string; checks: { kind: string; command: string; exitCode: number }[] }[]; unlanded: { id: string; reason: string; checks: { command: string; exitCode: number; tail: string }[] }[]; from: string; to: string };
    expect(report.landed.map((l) => l.id)).toEqual(['a', 'b']);
    // Each landing ran the plan's verify command and the land check on the integrated tree.
    expect(report.landed[1]!.checks.map((c) => [c.kind, c.command, c.exitCode])).toEqual([
      ['verify', 'grep -q beta b.txt', 0],
      ['land', 'sh tests.sh', 0],
    ]);
    expect(report.unlanded).toHaveLength(1);
    const c = report.unlanded[0]!;
    expect(c.id).toBe('c');
    expect(c.reason).toBe('the land check `sh tests.sh` exited 1 on the integrated tree');
    expect(c.checks.at(-1)!.tail).toContain('a: config.txt is not in safe mode');
    // main moved (in the checkout too): a and b on it, c not; its tests pass.
    expect(report.from).toBe(start);
    expect(git(r.repo, 'rev-parse', 'main')).toBe(report.to);
    expect(git(r.repo, 'log', '--format=%s', `${start}..main`).split('\n')).toHaveLength(2);
    expect(readFileSync(join(r.repo, 'config.txt'), 'utf8')).toBe('mode=safe\n');
    expect(readFileSync(join(r.repo, 'b.txt'), 'utf8')).toBe('beta\n');
    expect(execFileSync('sh', ['tests.sh'], { cwd: r.repo, encoding: 'utf8' })).toContain('all tests passed');
    expect(git(r.repo, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    // The report for people names the unlanded plan, why, and the check's output.
    const md = readFileSync(join(r.repo, '.ralph/batches/night/land-report.md'), 'utf8');
    expect(md).toMatch(/## Unlanded\n\n### c\n/);
    expect(md).toContain('a: config.txt is not in safe mode');
    // The scratch worktree is gone.
    expect(git(r.repo, 'worktree', 'list')).not.toContain('land-worktree');
  });

  it('two plans that conflict: the first lands, the second is unlanded naming the file, the target is whole', async () => {
    const r = makeRepo({ 'README.md': 'widgets\n' });
    branch(r.repo, 'one', { 'README.md': 'widgets, by one\n' });
    branch(r.repo, 'two', { 'README.md': 'widgets, by two\n' });
    const land = await runRalph(['land', 'one', 'two', '--strategy', 'merge'], { cwd: r.repo });
    expect(land.code).toBe(1);
    expect(land.stderr).toMatch(/land: two: not landed: conflict: two does not merge cleanly into the target: README\.md/);
    expect(readFileSync(join(r.repo, 'README.md'), 'utf8')).toBe('widgets, by one\n');
    expect(git(r.repo, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    const md = readFileSync(join(r.repo, '.ralph/land/main/land-report.md'), 'utf8');
    expect(md).toContain('- Landed: 1, unlanded: 1, skipped: 0');
    // --order chooses and orders: two alone lands now.
    const again = await runRalph(['land', 'one', 'two', '--order', 'two'], { cwd: r.repo });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/two: not landed: conflict: two does not rebase cleanly onto the target: README\.md/);
  });

  it('killed in the middle of a check: the target is where the last landing left it; run again, it resumes and lands the rest', async () => {
    const r = makeRepo({ 'README.md': 'widgets\n' });
    branch(r.repo, 'one', { 'one.txt': '1\n' });
    branch(r.repo, 'two', { 'two.txt': '2\n' });
    branch(r.repo, 'three', { 'three.txt': '3\n' });
    const gate = join(r.dir, 'go');
    const waiting = join(r.dir, 'waiting');
    // On two's integrated tree, the check waits until the test says go (the first time).
    const check = `if [ -f two.txt ] && [ ! -f ${gate} ]; then echo $$ > ${waiting}.tmp; mv ${waiting}.tmp ${waiting}; exec sleep 600; fi; true`;
    const start = git(r.repo, 'rev-parse', 'main');
    let child: ChildProcess | undefined;
    const killed = runRalph(['land', 'one', 'two', 'three', '--check', check], { cwd: r.repo, onStart: (c) => (child = c) });
    await until(() => existsSync(waiting));
    // A second landing meanwhile would move main under the first one's checks: refused.
    const second = await runRalph(['land', 'one', 'two', 'three', '--check', check], { cwd: r.repo });
    expect(second.code).toBe(64);
    expect(second.stderr).toMatch(/^ralph: another ralph land is using .*land\/main/);
    child!.kill('SIGKILL');
    await killed;
    process.kill(Number(readFileSync(waiting, 'utf8')), 'SIGKILL');
    // one landed; two was being checked: main is one's commit, whole, and the checkout clean.
    const state = JSON.parse(readFileSync(join(r.repo, '.ralph/land/main/land.json'), 'utf8')) as { status: string; items: { id: string; status: string; commit?: string }[] };
    expect(state.status).toBe('running');
    expect(state.items.map((i) => [i.id, i.status])).toEqual([
      ['one', 'landed'],
      ['two', 'pending'],
      ['three', 'pending'],
    ]);
    expect(git(r.repo, 'rev-parse', 'main')).toBe(state.items[0]!.commit);
    expect(git(r.repo, 'rev-parse', 'main^')).toBe(start);
    expect(git(r.repo, 'status', '--porcelain', '--untracked-files=no')).toBe('');

    writeFileSync(gate, '');
    const resumed = await runRalph(['land', 'one', 'two', 'three', '--check', check], { cwd: r.repo });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('resuming the landing');
    expect(resumed.stderr).not.toContain('one: landed');
    expect(git(r.repo, 'log', '--format=%s', `${start}..main`).split('\n')).toEqual(['three', 'two', 'one']);
    expect(['one.txt', 'two.txt', 'three.txt'].every((f) => existsSync(join(r.repo, f)))).toBe(true);
    expect(git(r.repo, 'worktree', 'list')).not.toContain('land-worktree');
  });
});

describe('ralph land --forge (built CLI, GitHub stand-in)', () => {
  it('merges each checked pull request on GitHub, exactly the checked commit, and the local target follows; a failing check merges nothing', async () => {
    const r = makeRepo({ 'README.md': 'widgets\n' });
    branch(r.repo, 'feature-one', { 'one.txt': '1\n' });
    branch(r.repo, 'feature-bad', { 'bad.txt': 'bad\n' });
    git(r.repo, 'push', '-q', 'origin', 'feature-one', 'feature-bad');
    const gh = await new GitHubStandIn({
      owner: 'acme',
      repo: 'widgets',
      tokens: { t: { login: 'n', scopes: ['repo'] } },
      headSha: (b) => r.remoteHead(b) ?? '',
      // As a merge on GitHub does: the base branch moves (here to the checked head, on top of it).
      onMerge: (pull) => (execFileSync('git', ['--git-dir', r.bare, 'update-ref', `refs/heads/${pull.base}`, pull.headSha]), pull.headSha),
    }).start();
    try {
      for (const head of ['feature-one', 'feature-bad']) gh.pulls.push({ number: gh.pulls.length + 1, title: head, body: '', head, headSha: r.remoteHead(head)!, base: 'main', draft: false, state: 'open', merged: false });
      const land = await runRalph(['land', 'feature-one', 'feature-bad', '--forge', '--check', 'test ! -f bad.txt'], { cwd: r.repo, env: { GITHUB_TOKEN: 't', GH_TOKEN: '', GITHUB_API_URL: gh.url } });
      expect(land.code).toBe(1);
      expect(land.stderr).toMatch(/feature-one: landed on main as [0-9a-f]{12}/);
      expect(gh.pulls.map((p) => [p.head, p.merged])).toEqual([
        ['feature-one', true],
        ['feature-bad', false],
      ]);
      expect(gh.requests.filter((q) => q.method === 'PUT').map((q) => q.path)).toEqual(['/repos/acme/widgets/pulls/1/merge']);
      // The remote's main and the local main are the checked commit.
      expect(r.remoteHead('main')).toBe(git(r.repo, 'rev-parse', 'main'));
      expect(existsSync(join(r.repo, 'one.txt'))).toBe(true);
      expect(existsSync(join(r.repo, 'bad.txt'))).toBe(false);
    } finally {
      await gh.stop();
    }
  });
});
