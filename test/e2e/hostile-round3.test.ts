// The third hostile round (docs/hostile.md), through the built CLI: a config file someone else
// planted, hooks and notification commands that leave daemons, a corrupted .ralph/, hostile text
// from files on the terminal, and the small ones (a FIFO as --config, `plans` a file, a plan
// run through a symlink beside itself).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertBuilt, makeTempDir, planText, removeTempDirs } from './helpers/exec-harness.js';
import { ralph } from './longrun-helpers/index.js';

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
