// The stall breaker and permission denials (docs/overnight.md), and a hard failure that is kept
// when a blocker claim beside it is rejected. Built CLI, scripted agents.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertBuilt, describeRun, eventsOf, makeTempDir, planText, RALPH_BIN, removeTempDirs, runExec, steps, type Step } from './helpers/exec-harness.js';
import { claude } from './longrun-helpers/index.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

const { complete, nothing } = steps;

describe.concurrent('stalls', () => {
  it('an agent that does nothing ends exhausted (no_progress) after 3 iterations, in a repository', async ({ expect }) => {
    const run = await runExec({ git: true, scenario: { iterations: [nothing] } });
    expect(run.code, describeRun(run)).toBe(3);
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 3 });
    expect(run.result!.reason).toMatch(/^no_progress: 3 iterations in a row/);
    expect(eventsOf(run, 'warning').map((w) => w.message)).toEqual(
      expect.arrayContaining([expect.stringMatching(/iteration 1 made no progress \(1 of 3/), expect.stringMatching(/iteration 2 made no progress \(2 of 3/)]),
    );
  });

  it('outside a repository too, and --max-stalls sets the count', async ({ expect }) => {
    const run = await runExec({ args: ['--max-stalls', '2'], scenario: { iterations: [nothing] } });
    expect(run.code, describeRun(run)).toBe(3);
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 2 });
    expect(run.result!.reason).toMatch(/^no_progress/);
  });

  it('a change to the tree, a commit or a new finding is progress', async ({ expect }) => {
    const finding = (title: string) => ({ say: `<observation type="insight" severity="low"><title>${title}</title><detail>d</detail></observation>` });
    const run = await runExec({
      git: true,
      scenario: {
        iterations: [
          [{ write: 'notes/a.txt', content: 'one' }],
          [{ write: 'notes/a.txt', content: 'two' }],
          [{ commit: 'work' }],
          [finding('first')],
          [{ write: 'notes/b.txt', content: 'new file' }],
          [finding('second')],
          complete,
        ],
      },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 7 });
  });

  it('a commit that leaves the tree as clean as it was is progress: HEAD is read again when the iteration ends', async ({ expect }) => {
    // The first commit takes in the untracked plan; the second starts and ends on a clean tree.
    const commit = (content: string) => [{ write: 'notes.txt', content }, { commit: content }] as Step[];
    const run = await runExec({ git: true, args: ['--max-stalls', '1'], scenario: { iterations: [commit('one'), commit('two'), complete] } });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 3 });
  });

  it("an agent that only appends to ralph's own log (ralph exec … > ralph.log) ends no_progress after 3", async ({ expect }) => {
    const work = makeTempDir();
    writeFileSync(join(work, 'plan.md'), planText());
    for (const args of [['init', '-q'], ['add', '-A'], ['commit', '-qm', 'initial']]) {
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: work, stdio: 'ignore' });
    }
    // ralph's stdout and stderr go into the working tree, untracked (appending, as nohup does); the agent appends there too.
    const code = await new Promise<number | null>((done) => {
      const child = spawn('sh', ['-c', `"${process.execPath}" "${RALPH_BIN}" exec plan.md -- sh -c 'echo still working >> ralph.log' >> ralph.log 2>&1`], { cwd: work, stdio: 'ignore' });
      child.on('close', done);
    });
    const log = readFileSync(join(work, 'ralph.log'), 'utf8');
    expect(code, log).toBe(3);
    expect(log).toMatch(/no_progress: 3 iterations in a row/);
    expect(log.match(/^still working$/gm)).toHaveLength(3);
  });

  it('iterations that made no progress but wrote near misses say so in the reason', async ({ expect }) => {
    const run = await runExec({ git: true, scenario: { iterations: [[{ say: 'Done! ###PLAN_COMPLETE###' }]] } });
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 3 });
    expect(run.result!.reason).toMatch(/^no_progress: 3 iterations in a row .*; 3 of them wrote a signal that was not one \(last: `Done! ###PLAN_COMPLETE###`\): the agent may think it signalled/);
  });

  it('the same finding again is not progress', async ({ expect }) => {
    const same = { say: '<observation type="insight" severity="low"><title>same</title><detail>d</detail></observation>' };
    const run = await runExec({ git: true, scenario: { iterations: [[same]] } });
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 4 });
    expect(run.result!.reason).toMatch(/^no_progress/);
  });
});

describe.concurrent('silent retries are not silence', () => {
  const summary = JSON.stringify({ plan: 'test', status: 'complete', tasks: [{ name: 'Task 1', status: 'done' }] });
  // Three seconds without a byte of output while the process keeps writing (as an agent retrying
  // its API does), then the work: with --silence-timeout 1s this is no hang.
  const quietThenDone = `i=0; while [ $i -lt 30 ]; do echo retry > /dev/null; sleep 0.1; i=$((i+1)); done; printf '%s' '${summary}' > "$RALPH_SUMMARY"; echo '###PLAN_COMPLETE###'`;

  it('an agent silent for three timeouts while its process does I/O is not off the rails', async ({ expect }) => {
    const run = await runExec({ args: ['--silence-timeout', '1s'], command: ['sh', '-c', quietThenDone] });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 1 });
    expect(eventsOf(run, 'warning').map((w) => w.message)).toContainEqual(expect.stringMatching(/no output for \d+ s, but the agent's processes are still reading and writing/));
  });

  it('a true hang (no output, no I/O) still ends at the silence timeout', async ({ expect }) => {
    const run = await runExec({ args: ['--silence-timeout', '1s'], command: ['sh', '-c', 'sleep 30'] });
    expect(run.code, describeRun(run)).toBe(4);
    expect(run.result!.reason).toMatch(/^off the rails: no output for 1 s/);
  });
});

describe.concurrent('permission denials', () => {
  const denied = [
    claude.init('s-deny'),
    claude.text('I will run the tests.'),
    claude.result('s-deny', 0.01, { permission_denials: [{ tool_name: 'Bash', tool_use_id: 'toolu_1', tool_input: { command: 'npm test' } }] }),
  ] as Step[];

  it('are warnings, named in the next prompt, and in 3 iterations in a row end the run blocked (permission_denied)', async ({ expect }) => {
    const run = await runExec({ git: true, args: ['--stream-format', 'claude-json'], scenario: { iterations: [denied] } });
    expect(run.code, describeRun(run)).toBe(2);
    expect(run.result).toMatchObject({ outcome: 'blocked', iterations: 3 });
    expect(run.result!.reason).toMatch(/^permission_denied: /);
    expect(run.result!.reason).toContain('Bash (npm test)');
    expect(eventsOf(run, 'warning').map((w) => w.message)).toContain('permission denied: Bash (npm test)');
    expect(run.calls![1]!.prompt).toMatch(/Your permissions refused these tool calls[\s\S]*- Bash \(npm test\)/);
  });

  it('denials in iterations that made progress do not count: harmless denials beside real work never end the run', async ({ expect }) => {
    const busy = (n: number): Step[] => [{ write: 'work.txt', content: String(n) }, ...denied];
    const run = await runExec({
      git: true,
      args: ['--stream-format', 'claude-json'],
      scenario: { iterations: [busy(1), busy(2), busy(3), busy(4), [claude.init('s-done'), { summary: true }, claude.text('###PLAN_COMPLETE###'), claude.result('s-done', 0.01)] as Step[]] },
    });
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.result).toMatchObject({ outcome: 'complete', iterations: 5 });
    // Still shown, and still named in the next prompt.
    expect(eventsOf(run, 'warning').map((w) => w.message)).toContain('permission denied: Bash (npm test)');
    expect(run.calls![1]!.prompt).toMatch(/Your permissions refused these tool calls/);
  });

  it('an iteration without denials starts the count again', async ({ expect }) => {
    const fine = [claude.init('s-ok'), claude.text('ok'), claude.result('s-ok', 0.01)] as Step[];
    // Each iteration changes a file, so the stall breaker stays out of it.
    const busy = (n: number, iteration: Step[]): Step[] => [{ write: 'work.txt', content: String(n) }, ...iteration];
    const run = await runExec({
      git: true,
      args: ['--stream-format', 'claude-json', '--max-iterations', '5'],
      scenario: { iterations: [busy(1, denied), busy(2, denied), busy(3, fine), busy(4, denied), busy(5, denied)] },
    });
    expect(run.result).toMatchObject({ outcome: 'exhausted', iterations: 5 });
  });
});

describe.concurrent('a rejected blocker beside a failure', () => {
  it('the failure decides: TASK_FAILED with BLOCKED without evidence ends failed', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [[{ say: '###TASK_FAILED:migrations###' }, { say: '###BLOCKED:need a person###' }]] } });
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.result).toMatchObject({ outcome: 'failed', iterations: 1, reason: expect.stringContaining('migrations') });
  });
});
