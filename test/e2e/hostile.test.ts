// Hostile agents and broken machines (docs/hostile.md), through the built CLI: verify commands
// that leave processes behind, FIFOs where files should be, a broken .ralph, escaping run ids,
// daemons an agent starts with setsid, plan ids that cannot name a file, a summary that reports a
// failed check.
import { execFileSync, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertBuilt, describeRun, eventsOf, makeTempDir, planText, RALPH_BIN, removeTempDirs, runExec, type Step } from './helpers/exec-harness.js';
import { PATIENCE_MS } from '../helpers/patience.js';
import { isRunning } from '../helpers/processes.js';
import { ralph, startRalph, waitFor } from './longrun-helpers/index.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

const claim: Step = { say: '###PLAN_COMPLETE###' };
const complete: Step[] = [{ summary: true }, claim];

/** Pids of processes whose command line holds `needle` (a sleep with a unique duration). */
function pidsRunning(needle: string): number[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(needle) && !l.includes('ps -eo'))
    .map((l) => Number(l.trim().split(/\s+/)[0]));
}

function killAll(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

const WRITE_SUMMARY = `printf '{"plan":"test","status":"complete","tasks":[{"name":"Task 1","status":"done"}]}' > "$RALPH_SUMMARY"`;

/** A temp folder with work/plan.md, and beside work/ an agent script that reads its prompt and runs `lines`. */
function agentInWork(lines: string[]): { dir: string; work: string; agent: string } {
  const dir = makeTempDir();
  const work = join(dir, 'work');
  mkdirSync(work);
  writeFileSync(join(work, 'plan.md'), planText());
  const agent = join(dir, 'agent.sh');
  writeFileSync(agent, ['cat > /dev/null', ...lines, ''].join('\n'));
  return { dir, work, agent };
}

/** A file of the (only) run in `work`. */
function runFile(work: string, name: string): string {
  const runs = join(work, '.ralph', 'runs');
  return readFileSync(join(runs, readdirSync(runs)[0]!, name), 'utf8');
}

/** What `p` gives, or undefined if it takes longer than `ms` (it hung). */
function within<T>(ms: number, p: Promise<T>): Promise<T | undefined> {
  return Promise.race([p, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);
}

/** A sleep nobody else on the machine runs, so the test can look for it. */
function uniqueSleep(): string {
  return `sleep ${3000 + randomInt(6000)}.${randomInt(1000)}`;
}

describe.concurrent('verify commands that leave processes behind', () => {
  it('a verify that exits 0 but leaves a setsid daemon holding its output passes at once, and the daemon is stopped', async ({ expect }) => {
    const sleep = uniqueSleep();
    const run = await runExec({
      plan: planText({ frontMatter: ['verify:', `  - "setsid sh -c '${sleep}' & echo started"`] }),
      scenario: { iterations: [complete] },
    });
    const left = pidsRunning(sleep);
    killAll(left);
    expect(run.code, describeRun(run)).toBe(0);
    expect(left).toEqual([]);
  });

  it('verify_timeout bounds a verify command, and a timed-out verify fails the gate', async ({ expect }) => {
    const sleep = uniqueSleep();
    const run = await runExec({
      plan: planText({ frontMatter: ['verify_timeout: 1s', 'verify:', `  - "${sleep}"`] }),
      args: ['--max-iterations', '1'],
      scenario: { iterations: [complete] },
    });
    killAll(pidsRunning(sleep));
    expect(run.code, describeRun(run)).toBe(3);
    const gate = eventsOf(run, 'gate')[0]!;
    expect(gate.accepted).toBe(false);
    expect(gate.reason).toMatch(/timed out after 1 s \(verify_timeout\)/);
  });

  it('--verify-timeout on the command line does the same', async ({ expect }) => {
    const sleep = uniqueSleep();
    const run = await runExec({
      plan: planText({ frontMatter: ['verify:', `  - "${sleep}"`] }),
      args: ['--max-iterations', '1', '--verify-timeout', '500ms'],
      scenario: { iterations: [complete] },
    });
    killAll(pidsRunning(sleep));
    expect(run.code, describeRun(run)).toBe(3);
    expect(eventsOf(run, 'gate')[0]!.reason).toMatch(/timed out/);
  });

  it('SIGTERM while verifying stops the verify command (and its setsid daemon) promptly: exit 130', async ({ expect }) => {
    const sleep = uniqueSleep();
    const dir = makeTempDir();
    // It hangs only once the agent has written its summary: the run's first look at its checks,
    // on the untouched tree (docs/plans.md#checks-that-can-fail), sees it fail at once.
    writeFileSync(join(dir, 'plan.md'), planText({ frontMatter: ['verify:', `  - "test -f plan.summary.json || exit 1; setsid sh -c '${sleep}' & ${sleep}"`] }));
    const agent = join(dir, 'agent.sh');
    writeFileSync(agent, `cat > /dev/null\n${WRITE_SUMMARY}\necho '###PLAN_COMPLETE###'\n`);
    const running = startRalph(['exec', 'plan.md', '--', 'sh', agent], { cwd: dir });
    const statusOf = () => {
      const runs = join(dir, '.ralph', 'runs');
      if (!existsSync(runs)) return undefined;
      const [id] = readdirSync(runs);
      try {
        return JSON.parse(readFileSync(join(runs, id!, 'STATUS.json'), 'utf8')).state as string;
      } catch {
        return undefined;
      }
    };
    await waitFor(() => statusOf() === 'verifying' && pidsRunning(sleep).length >= 2, 'the verify command to run');
    running.child.kill('SIGTERM');
    const ran = await within(PATIENCE_MS, running.done);
    const left = pidsRunning(sleep);
    killAll(left);
    if (!ran) running.child.kill('SIGKILL');
    expect(ran, 'ralph must end after SIGTERM while verifying').toBeDefined();
    expect(ran!.code, ran!.stderr).toBe(130);
    expect(left).toEqual([]);
  });
});

describe.concurrent('processes the agent starts outside its tree', () => {
  it('a setsid daemon of the agent is stopped when the iteration ends, and reported', async ({ expect }) => {
    // The daemon sleeps past the test and is checked by its pid: only the iteration's stopping can end it.
    const { work, agent } = agentInWork([
      "setsid sh -c 'echo $$ > daemon.pid; sleep 3600; touch late-file' > /dev/null 2>&1 < /dev/null &",
      'while [ ! -s daemon.pid ]; do sleep 0.05; done',
      WRITE_SUMMARY,
      "echo '###PLAN_COMPLETE###'",
    ]);
    const ran = await ralph(['exec', 'plan.md', '--', 'sh', agent], { cwd: work });
    expect(ran.code, ran.stderr).toBe(0);
    expect(isRunning(Number(readFileSync(join(work, 'daemon.pid'), 'utf8'))), 'the daemon outlived the run').toBe(false);
    expect(existsSync(join(work, 'late-file')), 'the daemon outlived the run').toBe(false);
    const events = runFile(work, 'events.jsonl')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const stopped = events.filter((e) => e.type === 'processes-stopped');
    expect(stopped.length).toBe(1);
    expect(stopped[0].processes.map((p: { command: string }) => p.command)).toContain('sh');
  });
});

describe.concurrent('FIFOs and other non-files where ralph reads a file', () => {
  it('a plan that is a FIFO: exec and validate exit 64 "not a regular file" at once', async ({ expect }) => {
    const dir = makeTempDir();
    execFileSync('mkfifo', [join(dir, 'plan.md')]);
    for (const args of [['exec', 'plan.md', '--', 'true'], ['validate', 'plan.md']]) {
      const ran = await within(PATIENCE_MS, ralph(args, { cwd: dir }));
      expect(ran, `ralph ${args[0]} hung on a FIFO`).toBeDefined();
      expect(ran!.code).toBe(64);
      expect(ran!.stderr).toContain('is not a regular file (it is a FIFO');
    }
  });

  it('a plan given through process substitution is refused at start, saying to save it to a file', async ({ expect }) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'plan.md'), planText());
    const out = await new Promise<{ code: number | null; stderr: string }>((done) => {
      const child = spawn('bash', ['-c', `${JSON.stringify(process.execPath)} ${JSON.stringify(RALPH_BIN)} exec <(cat plan.md) -- true`], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
      child.on('close', (code) => done({ code, stderr }));
    });
    expect(out.code).toBe(64);
    expect(out.stderr).toMatch(/\/dev\/fd\/\d+: is not a regular file .*save the plan to a file/);
  });

  it('a summary path that can never be written is said at start', async ({ expect }) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'plan.md'), planText());
    const ran = await ralph(['exec', 'plan.md', '--summary', '/proc/summary.json', '--', 'true'], { cwd: dir });
    expect(ran.code).toBe(64);
    expect(ran.stderr).toMatch(/the summary file \/proc\/summary\.json cannot be written: .*no completion could ever be accepted/);
  });

  it('a summary the agent made a FIFO is rejected, not waited for', async ({ expect }) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'plan.md'), planText());
    const agent = join(dir, 'agent.sh');
    writeFileSync(agent, 'cat > /dev/null\n[ -p "$RALPH_SUMMARY" ] || mkfifo "$RALPH_SUMMARY"\necho "###PLAN_COMPLETE###"\n');
    const ran = await ralph(['exec', 'plan.md', '--max-iterations', '1', '--', 'sh', agent], { cwd: dir });
    expect(ran.code, ran.stderr).toBe(3);
    expect(ran.stderr).toMatch(/summary path plan\.summary\.json is not a regular file/);
  });
});

describe.concurrent('a broken .ralph or run directory: exit 64 before anything runs', () => {
  const cases: [string, (dir: string) => string[], RegExp][] = [
    ['TASK_COMPLETE is a directory', (d) => (mkdirSync(join(d, 'TASK_COMPLETE')), []), /TASK_COMPLETE in the working directory is a directory/],
    ['.ralph/stop is a directory', (d) => (mkdirSync(join(d, '.ralph', 'stop'), { recursive: true }), []), /stop is a directory: a stop request is a plain file/],
    ['.ralph is a file', (d) => (writeFileSync(join(d, '.ralph'), 'x'), []), /\.ralph is a regular file, not a folder/],
    ['--run-dir is a file', (d) => (writeFileSync(join(d, 'rd'), 'x'), ['--run-dir', 'rd']), /--run-dir .*rd is a regular file, not a folder/],
    ['--summary is a directory', (d) => (mkdirSync(join(d, 'sum')), ['--summary', 'sum']), /the summary path sum is a directory, not a file/],
  ];
  for (const [name, setup, message] of cases) {
    it(name, async ({ expect }) => {
      const dir = makeTempDir();
      writeFileSync(join(dir, 'plan.md'), planText());
      const marker = join(dir, 'agent-ran');
      const args = setup(dir);
      const ran = await ralph(['exec', 'plan.md', ...args, '--', 'touch', marker], { cwd: dir });
      expect(ran.code, ran.stderr).toBe(64);
      expect(ran.stderr).toMatch(message);
      expect(ran.stderr).not.toMatch(/internal error/);
      expect(existsSync(marker)).toBe(false);
    });
  }
});

describe.concurrent('run ids are ids', () => {
  it('ralph stop ../../x writes nothing outside .ralph/runs', async ({ expect }) => {
    const dir = makeTempDir();
    const work = join(dir, 'a', 'b');
    mkdirSync(join(work, '.ralph', 'runs'), { recursive: true });
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'STATUS.json'), JSON.stringify({ pid: process.pid, state: 'running', iteration: 1, updated: new Date().toISOString() }));
    for (const command of ['stop', 'status']) {
      const ran = await ralph([command, '../../../elsewhere'], { cwd: work });
      expect(ran.code).toBe(64);
      expect(ran.stderr).toMatch(/is not a run id/);
    }
    expect(readdirSync(elsewhere)).toEqual(['STATUS.json']);
  });
});

describe.concurrent('plan ids and summaries', () => {
  it('a 300-character id, a NUL and a non-UTF-8 byte are refused with the other plan checks', async ({ expect }) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'long.md'), planText({ id: 'a'.repeat(300) }));
    writeFileSync(join(dir, 'nul.md'), planText({ id: '"a\\0b"' }));
    writeFileSync(join(dir, 'latin1.md'), Buffer.concat([Buffer.from('---\nid: caf'), Buffer.from([0xe9]), Buffer.from(planText().slice('---\nid: test'.length))]));
    const ran = await ralph(['validate', 'long.md', 'nul.md', 'latin1.md'], { cwd: dir });
    expect(ran.code).toBe(64);
    expect(ran.stderr).toMatch(/long\.md:2: id: is 300 bytes long; at most 100/);
    expect(ran.stderr).toMatch(/nul\.md:2: id: contains a control character/);
    expect(ran.stderr).toMatch(/latin1\.md:2: id: contains a byte that is not valid UTF-8/);
  });

  it('a summary whose own verification lists a failed check is rejected, naming the check', async ({ expect }) => {
    const failed = { verification: [{ check: 'npm test', passed: true }, { check: 'npm run lint', passed: false }] };
    const run = await runExec({ args: ['--max-iterations', '1'], scenario: { iterations: [[{ summary: failed }, claim]] } });
    expect(run.code, describeRun(run)).toBe(3);
    expect(eventsOf(run, 'gate')[0]!.reason).toMatch(/verification\[1\]: the check "npm run lint" did not pass/);
  });

  it('max_iterations: 1e308 is refused with its range', async ({ expect }) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'plan.md'), planText({ frontMatter: ['max_iterations: 1e308'] }));
    const ran = await ralph(['validate', 'plan.md'], { cwd: dir });
    expect(ran.code).toBe(64);
    expect(ran.stderr).toMatch(/max_iterations: expected a whole number from 1 to 10000/);
    const flag = await ralph(['exec', 'plan.md', '--max-iterations', '99999999', '--', 'true'], { cwd: dir });
    expect(flag.code).toBe(64);
    expect(flag.stderr).toMatch(/--max-iterations must be a whole number from 1 to 10000/);
  });
});

describe.concurrent('agent text in ralph status, and signal files that point elsewhere', () => {
  it('ralph status shows BLOCKED.md\'s reason without its escape sequences (clipboard, window title)', async ({ expect }) => {
    const evil = '\u001b]52;c;ZXZpbA==\u0007needs a person\u001b]0;owned\u0007 \u009b31m';
    const run = await runExec({ scenario: { iterations: [[{ write: 'BLOCKED.md', content: `${evil}\nthe database is down\n` }, { say: '###BLOCKED:db###' }]] }, args: ['--signal-grace', '300ms'] });
    expect(run.code, describeRun(run)).toBe(2);
    for (const args of [['status'], ['status', '--json']]) {
      const ran = await ralph(args, { cwd: run.work });
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stdout).toContain('needs a person');
      expect(ran.stdout).not.toMatch(/[\u0007\u001b\u009b]/);
    }
  });

  it('BLOCKED.md and PR_URL that are symlinks (or hard links) to files outside are not read into the result', async ({ expect }) => {
    const { dir, work, agent } = agentInWork([
      'ln -sf ../secret.txt PR_URL',
      'ln -f ../secret.txt TASK_COMPLETE.md',
      'ln -sf ../secret.txt BLOCKED.md',
      WRITE_SUMMARY,
      "echo '###PLAN_COMPLETE###'",
    ]);
    writeFileSync(join(dir, 'secret.txt'), 'https://github.com/secret/leak/pull/1 SECRET-CONTENT\n');
    const ran = await ralph(['exec', 'plan.md', '--', 'sh', agent], { cwd: work });
    expect(ran.code, ran.stderr).toBe(0);
    const result = runFile(work, 'result.json');
    expect(result).not.toContain('SECRET-CONTENT');
    expect(result).not.toContain('secret/leak');
    expect(JSON.parse(result).prUrl).toBeNull();
    const warnings: string[] = JSON.parse(result).warnings;
    expect(warnings).toContain('PR_URL is a symbolic link in the working directory: ignored (signal files count only as regular files of their own)');
    expect(warnings).toContain('TASK_COMPLETE.md has more than one hard link in the working directory: ignored (signal files count only as regular files of their own)');
  });
});

describe.concurrent('a run whose ralph was killed', () => {
  it('--resume stops the setsid daemon the dead run left behind before anything runs again', async ({ expect }) => {
    const { work, agent } = agentInWork([
      'if [ "$RALPH_ITERATION" = 1 ]; then',
      // The daemon sleeps past the test: only the resume's stopping can end it (a short sleep
      // would race a slow start of the resume on a busy machine).
      "  setsid sh -c 'echo $$ > daemon.pid; sleep 3600; touch late-file' > /dev/null 2>&1 < /dev/null &",
      '  while [ ! -s daemon.pid ]; do sleep 0.05; done; echo daemon-started; sleep 3600',
      'fi',
      WRITE_SUMMARY,
      "echo '###PLAN_COMPLETE###'",
    ]);
    const first = startRalph(['exec', 'plan.md', '--', 'sh', agent], { cwd: work });
    await waitFor(() => first.stderr().includes('daemon-started'), 'the daemon to start');
    first.child.kill('SIGKILL');
    await first.done;
    const resumed = await ralph(['exec', 'plan.md', '--resume', 'latest', '--', 'sh', agent], { cwd: work });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/process\(es\) of the run were still running and were stopped/);
    const daemon = Number(readFileSync(join(work, 'daemon.pid'), 'utf8'));
    expect(isRunning(daemon), "the dead run's daemon ran on").toBe(false);
  });
});

describe.concurrent('FIFOs in the run directory', () => {
  it('ralph status does not hang on STATUS.json, state.json, result.json or events.jsonl made FIFOs', async ({ expect }) => {
    const run = await runExec({ scenario: { iterations: [complete] } });
    expect(run.code, describeRun(run)).toBe(0);
    for (const name of ['STATUS.json', 'state.json', 'result.json', 'events.jsonl']) {
      rmSync(join(run.runDir!, name));
      execFileSync('mkfifo', [join(run.runDir!, name)]);
    }
    const ran = await within(PATIENCE_MS, ralph(['status'], { cwd: run.work }));
    expect(ran, 'ralph status hung on a FIFO').toBeDefined();
    expect(ran!.stderr).not.toMatch(/internal error/);
  });
});

describe.concurrent('a plan the agent turns into a FIFO', () => {
  it('does not hang the loop: the run goes on with the plan as it was read', async ({ expect }) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'plan.md'), planText({ frontMatter: ['max_iterations: 2'] }));
    const agent = join(dir, 'agent.sh');
    writeFileSync(agent, 'cat > /dev/null\nif [ ! -p "$RALPH_PLAN" ]; then rm -f "$RALPH_PLAN"; mkfifo "$RALPH_PLAN"; fi\necho working\n');
    const ran = await within(PATIENCE_MS, ralph(['exec', 'plan.md', '--', 'sh', agent], { cwd: dir }));
    expect(ran, 'ralph hung on the plan made a FIFO').toBeDefined();
    expect(ran!.code, ran!.stderr).toBe(3);
  });
});
