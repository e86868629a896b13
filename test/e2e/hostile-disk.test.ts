// Broken machines (docs/hostile.md): an agent flooding output, a run directory on another file
// system, a full disk. Each ends with a documented outcome, never an internal error.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertBuilt, makeTempDir, planText, removeTempDirs } from './helpers/exec-harness.js';
import { ralph } from './longrun-helpers/index.js';
import { systemDepsRequired } from '../helpers/system-deps.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

const SUMMARY = `printf '{"plan":"test","status":"complete","tasks":[{"name":"Task 1","status":"done"}]}' > "$RALPH_SUMMARY"`;

function events(runDir: string): Record<string, any>[] {
  return readFileSync(join(runDir, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
}

describe.concurrent('the transcript cap', () => {
  it('an agent flooding output (yes) is stopped at 10 × --max-log and is off the rails; the log keeps head and tail and says what was dropped', async ({ expect }) => {
    const dir = makeTempDir();
    writeFileSync(join(dir, 'plan.md'), planText());
    const ran = await ralph(['exec', 'plan.md', '--max-log', '64KB', '--', 'sh', '-c', 'cat > /dev/null; yes'], { cwd: dir });
    expect(ran.code, ran.stderr).toBe(4);
    const runs = join(dir, '.ralph', 'runs');
    const runDir = join(runs, readdirSync(runs)[0]!);
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8'));
    expect(result.reason).toMatch(/off the rails: the agent wrote more than 655360 bytes in one iteration \(10 × --max-log\) without a decision/);
    const log = readFileSync(join(runDir, 'iterations', '1.log'), 'utf8');
    expect(log.length).toBeLessThan(64 * 1024 + 400);
    expect(log).toMatch(/^y\ny\n/);
    expect(log).toMatch(/\[ralph: \d+ bytes of output dropped here: this log keeps the first 32768 and the last 32768 bytes/);
    const cut = events(runDir).filter((e) => e.type === 'transcript-cut');
    expect(cut).toMatchObject([{ iteration: 1, maxBytes: 65536 }]);
    expect(cut[0]!.droppedBytes).toBeGreaterThan(0);
  });
});

describe.concurrent('a run directory on another file system', () => {
  it('a rejected claim\'s files are copied and removed where rename fails with EXDEV', async ({ expect }) => {
    const dir = makeTempDir();
    if (!existsSync('/dev/shm') || statSync('/dev/shm').dev === statSync(dir).dev) {
      console.warn('SKIPPED: /dev/shm is not another file system here; the EXDEV case cannot be made');
      return;
    }
    const runDir = mkdtempSync('/dev/shm/ralph-exdev-');
    try {
      writeFileSync(join(dir, 'plan.md'), planText());
      const agent = join(dir, 'agent.sh');
      writeFileSync(agent, ['cat > /dev/null', 'if [ "$RALPH_ITERATION" = 1 ]; then echo done > TASK_COMPLETE; exit 0; fi', SUMMARY, "echo '###PLAN_COMPLETE###'", ''].join('\n'));
      const ran = await ralph(['exec', 'plan.md', '--run-dir', runDir, '--', 'sh', agent], { cwd: dir });
      expect(ran.code, ran.stderr).toBe(0);
      expect(readFileSync(join(runDir, 'iterations', '1', 'TASK_COMPLETE'), 'utf8')).toBe('done\n');
      expect(existsSync(join(dir, 'TASK_COMPLETE'))).toBe(false);
    } finally {
      rmSync(runDir, { recursive: true, force: true });
    }
  });
});

describe('a full disk', () => {
  it('ends interrupted (130) saying what is full; --resume completes the run once space is freed', async ({ expect }) => {
    const dir = makeTempDir();
    const mnt = join(dir, 'small');
    mkdirSync(mnt);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', mnt], { stdio: 'ignore' });
    } catch {
      // A full disk is made with a 1 MB tmpfs, which needs root (or CAP_SYS_ADMIN).
      const why = 'SKIPPED: cannot mount a small tmpfs (run the tests as root, e.g. in a container) for the full-disk case';
      if (systemDepsRequired) throw new Error(why);
      console.warn(why);
      return;
    }
    try {
      writeFileSync(join(dir, 'plan.md'), planText());
      const runDir = join(mnt, 'run');
      const agent = join(dir, 'agent.sh');
      writeFileSync(
        agent,
        ['cat > /dev/null', 'if [ "$RALPH_ITERATION" = 1 ]; then head -c 3000000 /dev/zero | tr "\\0" "x"; echo; fi', SUMMARY, "echo '###PLAN_COMPLETE###'", ''].join('\n'),
      );
      const first = await ralph(['exec', 'plan.md', '--quiet', '--run-dir', runDir, '--', 'sh', agent], { cwd: dir });
      expect(first.stderr).not.toMatch(/internal error/);
      expect(first.code, first.stdout + first.stderr).toBe(130);
      expect(first.stderr).toMatch(/no space left to write the run's files \(cannot write the transcript .*iterations\/1\.log: ENOSPC\)/);
      expect(first.stderr).toMatch(/resume with: ralph exec \S+ --resume run/);
      rmSync(join(runDir, 'iterations', '1.log'));
      const second = await ralph(['exec', 'plan.md', '--run-dir', runDir, '--resume', 'latest', '--', 'sh', agent], { cwd: dir });
      expect(second.code, second.stdout + second.stderr).toBe(0);
      expect(JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8'))).toMatchObject({ outcome: 'complete', iterations: 2 });
    } finally {
      execFileSync('umount', [mnt]);
    }
  });
});

describe('a read-only .ralph', () => {
  it('is a usage error (64) before anything runs', async ({ expect }) => {
    const dir = makeTempDir();
    const ralphDir = join(dir, '.ralph');
    mkdirSync(ralphDir);
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', ralphDir], { stdio: 'ignore' });
    } catch {
      const why = 'SKIPPED: cannot mount a read-only tmpfs (needs root) for the read-only .ralph case';
      if (systemDepsRequired) throw new Error(why);
      console.warn(why);
      return;
    }
    try {
      writeFileSync(join(dir, 'plan.md'), planText());
      const ran = await ralph(['exec', 'plan.md', '--', 'touch', join(dir, 'agent-ran')], { cwd: dir });
      expect(ran.code, ran.stderr).toBe(64);
      expect(ran.stderr).toMatch(/cannot write the run directory .*read-only file system/);
      expect(existsSync(join(dir, 'agent-ran'))).toBe(false);
    } finally {
      execFileSync('umount', [ralphDir]);
    }
  });
});
