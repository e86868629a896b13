// A batch of plans in worktrees, sandboxed (docs/sandbox.md, docs/batch.md): each plan's agent
// works and commits in its own worktree (the repository's git folder takes its objects and refs),
// and is refused what lies outside (its worktree's `.git` file included: repointed, it would send
// ralph's own commit elsewhere), each run reporting its own refusals.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph } from '../helpers/run-ralph.js';
import { sandboxDepsAvailable } from './helpers.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const tempDir = tempDirs();

const AGENT = `import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
readFileSync(0);
const id = process.env.RALPH_PLAN.match(/(\\w+)\\.md$/)[1];
writeFileSync(id + '.txt', 'work\\n');
try { appendFileSync(process.env.HOME + '/.bashrc', 'x'); } catch {}
try { writeFileSync('.git', 'gitdir: /elsewhere\\n'); } catch {}
execFileSync('git', ['add', id + '.txt']);
execFileSync('git', ['commit', '-qm', 'work ' + id]);
writeFileSync(process.env.RALPH_SUMMARY, JSON.stringify({ plan: id, status: 'complete', tasks: [{ name: 'Task 1', status: 'done' }] }));
console.log('###PLAN_COMPLETE###');
`;

describe.runIf(sandboxDepsAvailable())('ralph batch --sandbox on', () => {
  it("each plan's agent commits in its own worktree and is refused ~/.bashrc; each result counts its own refusals", async () => {
    const base = tempDir('ralph-sandbox-batch-');
    const home = join(base, 'home');
    const repo = join(base, 'repo');
    mkdirSync(home);
    writeFileSync(join(home, '.bashrc'), '# mine\n');
    mkdirSync(join(repo, 'plans'), { recursive: true });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    git('config', 'user.email', 'test@ralph.invalid');
    git('config', 'user.name', 'test');
    for (const id of ['one', 'two']) {
      writeFileSync(join(repo, 'plans', `${id}.md`), ['---', `id: ${id}`, '---', `# ${id}`, '', '<tasks>', '<task><name>Task 1</name><action>Work.</action></task>', '</tasks>', ''].join('\n'));
    }
    writeFileSync(join(repo, 'agent.mjs'), AGENT);
    git('add', '.');
    git('commit', '-qm', 'init');
    const run = await runRalph(['batch', 'plans', '--concurrency', '2', '--sandbox', 'on', '--out', 'out', '--', process.execPath, join(repo, 'agent.mjs')], { cwd: repo, env: { HOME: home } });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('# mine\n');
    const log = git('log', '--all', '--format=%s');
    expect(log).toContain('work one');
    expect(log).toContain('work two');
    for (const id of ['one', 'two']) {
      const result = JSON.parse(readFileSync(join(repo, 'out', 'runs', id, 'result.json'), 'utf8'));
      expect(result.outcome).toBe('complete');
      expect(result.sandbox.mode).toBe('on');
      const targets = result.sandbox.refusals.map((r: { target: string }) => r.target);
      expect(targets).toContain(join(home, '.bashrc'));
      expect(targets.some((t: string) => t.endsWith(`${id}/.git`)), JSON.stringify(targets)).toBe(true);
    }
  });
});
