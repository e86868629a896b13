// Messages that fit the way the person called ralph (docs/first-hour.md#messages-that-fit-the-call):
// --agent speaks of agents and their npm packages, a typo gets a suggestion, no agent at all
// suggests the presets, and the start line names the agent.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph } from '../helpers/run-ralph.js';
import { BATCH_AGENT as AGENT } from '../helpers/batch-agent.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const tempDir = tempDirs();

function folder(): string {
  const dir = tempDir('ralph-messages-');
  writeFileSync(join(dir, 'plan.md'), '---\nmax_iterations: 2\n---\n# p\n\nDo it.\n\n<tasks>\n<task><name>only</name><action>do it</action><done>done</done></task>\n</tasks>\n');
  return dir;
}

// Only node's own folder and the system's: no agent CLI on PATH, no key.
const env = { PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(':'), ANTHROPIC_API_KEY: '' };

describe('messages that fit the call', () => {
  it('--agent gemini, not installed: names the agent and its npm package, no `--`, no trailing colon', async () => {
    const ran = await runRalph(['exec', 'plan.md', '--agent', 'gemini'], { cwd: folder(), env });
    expect(ran.code).toBe(64);
    expect(ran.stderr).toBe('ralph: cannot start agent gemini ("gemini"): no such program (is it installed and on PATH?)\nInstall it: npm install -g @google/gemini-cli (or choose another agent with --agent).\n');
  });

  it('--agent cluade suggests claude', async () => {
    const ran = await runRalph(['exec', 'plan.md', '--agent', 'cluade'], { cwd: folder(), env });
    expect(ran.code).toBe(64);
    expect(ran.stderr.split('\n')[0]).toBe('ralph: --agent: unknown agent "cluade"; did you mean --agent claude?');
  });

  it('no agent at all suggests --agent claude and the other presets, not `-- claude -p`', async () => {
    const ran = await runRalph(['exec', 'plan.md'], { cwd: folder(), env });
    expect(ran.code).toBe(64);
    expect(ran.stderr).toContain('`ralph exec plan.md --agent claude` (or codex, gemini, opencode, qwen, amp)');
    expect(ran.stderr).not.toContain('claude -p');
  });

  it('under --agent the start line names the agent, and the results line is the last', async () => {
    const dir = folder();
    writeFileSync(join(dir, 'ralph.config.yaml'), `agents:\n  mine:\n    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}]\n    stream_format: text\n`);
    const ran = await runRalph(['exec', 'plan.md', '--agent', 'mine'], { cwd: dir, env: { ...env, NO_COLOR: '1' } });
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toMatch(/ralph: starting run \S+: plan plan with agent mine \(run dir /);
    expect(ran.stderr).not.toContain('command executor');
    expect(ran.stderr.trimEnd().split('\n').at(-1)).toMatch(/ralph: complete after 1 iteration, cost unknown; results in /);
  });
});
