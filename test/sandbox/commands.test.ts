// The sandbox's commands and reports through the built CLI with real bubblewrap:
// `ralph sandbox check`, `ralph config` (the mode in effect and why, --sandbox's policy), the
// line the next prompt gets after a refusal, and `ralph report`'s section.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph } from '../helpers/run-ralph.js';
import { sandboxDepsAvailable } from './helpers.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const tempDir = tempDirs();

function workspace() {
  const base = tempDir('ralph-sandbox-cmd-');
  const home = join(base, 'home');
  const repo = join(base, 'repo');
  mkdirSync(join(home, '.ssh'), { recursive: true });
  writeFileSync(join(home, '.ssh', 'id_rsa'), 'THE-REAL-KEY\n');
  writeFileSync(join(home, '.bashrc'), '# mine\n');
  mkdirSync(repo);
  execFileSync('git', ['init', '-q'], { cwd: repo });
  return { base, home, repo };
}

describe.runIf(sandboxDepsAvailable())('the sandbox, checked and shown', () => {
  it('ralph sandbox check: every escape stopped, work in the tree allowed, nothing changed; exit 0', async () => {
    const { home, repo } = workspace();
    const run = await runRalph(['sandbox', 'check'], { cwd: repo, env: { HOME: home } });
    expect(run.code, run.stderr).toBe(0);
    for (const line of [/stopped\s+write a file outside the working tree/, /stopped\s+write ~\/\.bashrc/, /stopped\s+plant a git hook/, /stopped\s+write ralph's run files/, /stopped\s+read a secret \(~\/\.ssh\/id_rsa\)/, /stopped\s+connect to a host not on the list/, /allowed\s+write in the working tree/]) {
      expect(run.stdout).toMatch(line);
    }
    expect(run.stdout).toMatch(/6 of 6 escapes stopped/);
    expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('# mine\n');
    expect(readdirSync(home).sort()).toEqual(['.bashrc', '.ssh']);
    expect(readdirSync(join(repo, '.git', 'hooks')).filter((n) => !n.endsWith('.sample'))).toEqual([]);
    // Nor anything the sandbox made in the tree to mount over (.ralph, .claude, .bashrc, …).
    expect(readdirSync(repo)).toEqual(['.git']);
  });

  it('ralph config: the sandbox row says the mode, what it means here and why; --sandbox shows the policy', async () => {
    const { home, repo } = workspace();
    writeFileSync(join(repo, 'ralph.config.yaml'), 'sandbox:\n  mode: on\n  allow_hosts: [registry.npmjs.org]\n');
    const shown = await runRalph(['config', '--agent', 'claude', '--sandbox'], { cwd: repo, env: { HOME: home, RALPH_SANDBOX: '' } });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(/^sandbox\s+on → on here\s+.*ralph\.config\.yaml:1$/m);
    expect(shown.stdout).toMatch(/write:\s+.*repo.*~\/\.claude, ~\/\.claude\.json/);
    expect(shown.stdout).toMatch(/read-only:\s+.*\.git\/hooks.*\.git\/config.*\.ralph/);
    expect(shown.stdout).toMatch(/hidden:\s+~\/\.ssh, ~\/\.aws, ~\/\.config\/gh/);
    expect(shown.stdout).toMatch(/hosts:\s+api\.anthropic\.com.*registry\.npmjs\.org/);
    const off = await runRalph(['config'], { cwd: repo, env: { HOME: home, RALPH_SANDBOX: 'off' } });
    expect(off.stdout).toMatch(/^sandbox\s+off → off\s+environment \(RALPH_SANDBOX\)$/m);
  });

  it('a refusal is named in the next prompt, so the agent adapts; ralph report has a section for it', async () => {
    const { home, repo } = workspace();
    writeFileSync(join(repo, 'plan.md'), ['---', 'id: adapt', '---', '# Adapt', '', '<tasks>', '<task><name>Task 1</name><action>Work.</action></task>', '</tasks>', ''].join('\n'));
    // Iteration 1 writes ~/.bashrc and ends undecided; iteration 2 keeps its prompt and completes.
    writeFileSync(
      join(repo, 'agent.mjs'),
      [
        "import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';",
        "const prompt = readFileSync(0, 'utf8');",
        "if (process.env.RALPH_ITERATION === '1') { try { appendFileSync(process.env.HOME + '/.bashrc', 'x\\n'); } catch {} process.exit(0); }",
        "writeFileSync('prompt2.txt', prompt);",
        "writeFileSync(process.env.RALPH_SUMMARY, JSON.stringify({ plan: 'adapt', status: 'complete', tasks: [{ name: 'Task 1', status: 'done' }] }));",
        "console.log('###PLAN_COMPLETE###');",
      ].join('\n'),
    );
    const run = await runRalph(['exec', 'plan.md', '--sandbox', 'on', '--max-iterations', '3', '--', process.execPath, 'agent.mjs'], { cwd: repo, env: { HOME: home } });
    expect(run.code, run.stderr).toBe(0);
    const prompt2 = readFileSync(join(repo, 'prompt2.txt'), 'utf8');
    expect(prompt2).toContain("ralph's sandbox refused what you tried");
    expect(prompt2).toContain('`~/.bashrc` was not written');
    const report = await runRalph(['report'], { cwd: repo, env: { HOME: home } });
    expect(report.stdout).toMatch(/### Sandbox refusals/);
    expect(report.stdout).toMatch(/\| adapt \| 1 \| write .*\.bashrc \|/);
    expect(existsSync(join(repo, '.ralph'))).toBe(true);
  });
});
