// What a person sees on a terminal (docs/first-hour.md), in a real pseudo-terminal at 80 and 120
// columns, read back through a terminal emulator: every line of ralph's and of the agent is whole,
// the status line is gone at the end, and the last line names the run directory in full.
import { cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ptyAvailable, runInPty, screenOf } from '../helpers/terminal.js';
import { BIN, ROOT } from '../helpers/run-ralph.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const SCRIPTED = join(ROOT, 'test/fixtures/agents/scripted-agent.mjs');
const tempDir = tempDirs();

function env(): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(e)) if ((k.startsWith('RALPH_') && k !== 'RALPH_SANDBOX') || k.startsWith('ANTHROPIC_') || k === 'NO_COLOR' || k === 'FORCE_COLOR') delete e[k];
  return e;
}

/** A folder holding the demo (plan and agent) as a user's repository would. */
function demoFolder(): string {
  const dir = tempDir('ralph-tty-');
  cpSync(join(ROOT, 'plans/demo.md'), join(dir, 'plans/demo.md'));
  cpSync(join(ROOT, 'examples/demo-agent.mjs'), join(dir, 'examples/demo-agent.mjs'));
  return dir;
}

const LONG = `a long line from the agent: ${Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ')} END-OF-LONG-LINE`;

describe.runIf(ptyAvailable())('exec on a terminal', () => {
  for (const cols of [80, 120]) {
    it(`at ${cols} columns: the demo's lines are whole, the status line is gone, the last line names the run directory`, async () => {
      const dir = demoFolder();
      const ran = await runInPty([process.execPath, BIN, 'exec', 'plans/demo.md'], { cols, rows: 40, cwd: dir, env: env() });
      expect(ran.code, ran.raw).toBe(0);
      // Line wrap is never turned off, so nothing is cut at the last column.
      expect(ran.raw).not.toContain('\u001b[?7l');
      const screen = await screenOf(ran.raw, cols, 40);
      const runDir = join(dir, '.ralph', 'runs', readdirSync(join(dir, '.ralph', 'runs'))[0]!);
      const last = screen.lines[screen.lines.length - 1]!;
      expect(last).toBe(`ralph: complete after 2 iterations, cost unknown; results in ${runDir}`);
      expect(screen.lines).toContain('ralph: run complete (exit 0): PLAN_COMPLETE accepted: summary examples/demo-work/demo.summary.json is valid; 1 verify command(s) passed; tasks 2/2 verified');
      // The agent's lines, each whole and on its own line.
      for (const line of [
        'Task 1: writing examples/demo-work/wordcount.mjs',
        'Saved progress: Task 1 done, Task 2 next.',
        '###BAILOUT:context is getting long; Task 1 done, Task 2 next###',
        '  <title>countWords treats any whitespace run as one separator</title>',
        '###PLAN_COMPLETE###',
      ]) {
        expect(screen.lines).toContain(line);
      }
      expect(screen.lines).toContain('ralph: signal BAILOUT:context is getting long; Task 1 done, Task 2 next (stdout line 5)');
      // No status line left behind, and none written over another line.
      expect(screen.lines.filter((l) => l.includes('ralph ▸'))).toEqual([]);
      expect(screen.lines.filter((l) => l.startsWith('ralph:') && l.indexOf('ralph:', 1) !== -1)).toEqual([]);
      // The status line itself never wrapped: every one drawn fit in the terminal.
      const statusLines = ran.raw.split(/\r|\n|\u001b\[J/).filter((l) => l.includes('ralph ▸'));
      expect(statusLines.length).toBeGreaterThan(0);
      for (const l of statusLines) expect(Array.from(l.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')).length).toBeLessThan(cols);
      // At 80 columns the line is cut after the first letters of the signal: the most telling parts come first.
      const second = `ralph ▸ iteration 2 (max 5) · running · tasks 1/2 verified · signal ${cols >= 120 ? 'BAILOUT · ' : 'BA'}`;
      expect(statusLines.some((l) => l.includes(second)), statusLines.join('\n')).toBe(true);
      // Unknown numbers say so (where the line has room for them).
      // Control sequences are not text: colours, and the erase to the end of the row after the line.
      if (cols >= 120) expect(statusLines.some((l) => / · cost unknown · tokens unknown$/.test(l.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')))).toBe(true);
    });
  }

  it('at 80 columns an agent line three times as wide is shown whole, wrapped, not cut', async () => {
    const dir = tempDir('ralph-tty-');
    writeFileSync(join(dir, 'plan.md'), '---\nid: t\nmax_iterations: 2\n---\n# T\n<tasks><task><name>Task 1</name><action>x</action></task></tasks>\n');
    mkdirSync(join(dir, 'agent'));
    const scenario = join(dir, 'agent', 'scenario.json');
    writeFileSync(scenario, JSON.stringify({ plan: 't', iterations: [[{ say: LONG }, { summary: true }, { say: '###PLAN_COMPLETE###' }]] }));
    const ran = await runInPty([process.execPath, BIN, 'exec', 'plan.md', '--', process.execPath, SCRIPTED, scenario], { cols: 80, rows: 24, cwd: dir, env: env() });
    expect(ran.code, ran.raw).toBe(0);
    const screen = await screenOf(ran.raw, 80, 24);
    expect(screen.lines).toContain(LONG);
    expect(screen.lines[screen.lines.length - 1]).toMatch(/^ralph: complete after 1 iteration, cost unknown; results in \/.*\.ralph\/runs\/[0-9]{8}-[0-9]{6}-[0-9a-f]{4}$/);
  });

  it('batch at 80 columns: plan lines whole, no live line left, the last line names the index in full', async () => {
    const dir = tempDir('ralph-tty-batch-');
    for (const [id, how] of [['first-plan-with-a-rather-long-identifier', 'complete 600'], ['second', 'complete 300']]) {
      mkdirSync(join(dir, 'plans'), { recursive: true });
      writeFileSync(join(dir, 'plans', `${id}.md`), `---\nmax_iterations: 3\n---\n# ${id}\n\n<!-- agent: ${how} -->\n\n<tasks>\n<task><name>only</name><action>do it</action></task>\n</tasks>\n`);
    }
    const agent = join(ROOT, 'test/fixtures/batch/agent.mjs');
    const ran = await runInPty([process.execPath, BIN, 'batch', 'plans', '--concurrency', '2', '--isolate', 'none', '--', process.execPath, agent], { cols: 80, rows: 24, cwd: dir, env: env() });
    expect(ran.code, ran.raw).toBe(0);
    expect(ran.raw).not.toContain('\u001b[?7l');
    const screen = await screenOf(ran.raw, 80, 24);
    const batches = join(dir, '.ralph', 'batches');
    const index = join(batches, readdirSync(batches).filter((n) => !n.startsWith('.'))[0]!, 'index.md');
    expect(screen.lines[screen.lines.length - 1]).toBe(`[2/2 plans complete] index: ${index}`);
    expect(screen.lines.filter((l) => l.includes('ralph ▸'))).toEqual([]);
    expect(screen.lines.some((l) => /^first-plan-with-a-rather-long-identifier: complete, verdict \S+, 1 iteration, unknown$/.test(l))).toBe(true);
    expect(screen.lines.some((l) => /^second: complete, verdict \S+, 1 iteration, unknown$/.test(l))).toBe(true);
  });
});
