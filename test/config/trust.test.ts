// A config file found by the search is obeyed only when nobody else could have put it there
// (docs/config.md#trusting-a-config-file); one named with --config is the user's choice. Also:
// the config file is read as plans are (a regular file, bounded).
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProjectConfig, MAX_CONFIG_BYTES } from '../../src/config/load-config.js';
import type { Identity } from '../../src/config/trust.js';
import { InvalidInputError, UsageError, formatProblem } from '../../src/errors.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const tempDir = tempDirs();

const me: Identity = { uid: process.getuid!(), gid: process.getgid!() };

/** root/ralph.config.yaml (agent: codex), and root/work below it: the folder ralph runs in. */
function layout(): { root: string; work: string; file: string } {
  const root = tempDir('ralph-trust-');
  const work = join(root, 'work');
  mkdirSync(work);
  const file = join(root, 'ralph.config.yaml');
  writeFileSync(file, 'agent: codex\n');
  return { root, work, file };
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof InvalidInputError) return error.problems.map(formatProblem).join('\n');
    if (error instanceof UsageError) return `${error.message}\n${error.hint}`;
    throw error;
  }
  return 'accepted';
}

describe('trusting a config file found by the search', () => {
  it('its own folder: obeyed', () => {
    const { work } = layout();
    expect(loadProjectConfig(work, {}, undefined, me).agent).toBe('codex');
  });

  it('in a folder anyone can write (a /tmp): refused, naming the file and the way to trust it; RALPH_SAFE_DIRS or * lets it in', () => {
    const { root, work, file } = layout();
    chmodSync(root, 0o1777);
    const why = refusal(() => loadProjectConfig(work, {}, undefined, me));
    expect(why).toContain(`refusing the config file ${file}`);
    expect(why).toContain(`its folder ${root} can be written by others`);
    expect(why).toContain(`RALPH_SAFE_DIRS=${root}`);
    expect(loadProjectConfig(work, { RALPH_SAFE_DIRS: `/elsewhere:${root}` }, undefined, me).agent).toBe('codex');
    expect(loadProjectConfig(work, { RALPH_SAFE_DIRS: '*' }, undefined, me).agent).toBe('codex');
    // Named with --config: the user's own choice.
    expect(loadProjectConfig(work, {}, file, me).agent).toBe('codex');
  });

  it('the user-level safe-dirs file lists folders as RALPH_SAFE_DIRS does', () => {
    const { root, work } = layout();
    chmodSync(root, 0o777);
    const home = tempDir('ralph-trust-home-');
    mkdirSync(join(home, 'ralph'));
    writeFileSync(join(home, 'ralph', 'safe-dirs'), `# folders I trust\n${root}\n`);
    expect(loadProjectConfig(work, { XDG_CONFIG_HOME: home }, undefined, me).agent).toBe('codex');
    expect(refusal(() => loadProjectConfig(work, { XDG_CONFIG_HOME: join(home, 'none') }, undefined, me))).toContain('refusing');
  });

  it('a file others can write, or in a folder a group other than yours can write: refused', () => {
    const a = layout();
    chmodSync(a.file, 0o666);
    expect(refusal(() => loadProjectConfig(a.work, {}, undefined, me))).toContain('others can write it');
    const b = layout();
    chmodSync(b.root, 0o775);
    expect(loadProjectConfig(b.work, {}, undefined, me).agent).toBe('codex');
    expect(refusal(() => loadProjectConfig(b.work, {}, undefined, { uid: me.uid, gid: me.gid + 1 }))).toContain('can be written by others');
  });

  it("a file owned by another user (not root) is refused; root's is not", () => {
    const { work, file } = layout();
    // As root the file is given to another user; otherwise "the user" is another uid than the file's.
    const who: Identity = me.uid === 0 ? me : { uid: me.uid + 1, gid: me.gid };
    if (me.uid === 0) chownSync(file, 4242, 4242);
    expect(refusal(() => loadProjectConfig(work, {}, undefined, who))).toMatch(/it is owned by another user \(uid \d+; you are uid \d+\)/);
    if (me.uid === 0) {
      chownSync(file, 0, 0);
      expect(loadProjectConfig(work, {}, undefined, { uid: 4242, gid: 4242 }).agent).toBe('codex');
    }
  });
});

describe('the config file is read as a plan is', () => {
  it('--config naming a FIFO or a device is refused at once; a file over the bound is not read', () => {
    const { root, work } = layout();
    const fifo = join(root, 'fifo.yaml');
    execFileSync('mkfifo', [fifo]);
    expect(refusal(() => loadProjectConfig(work, {}, fifo, me))).toContain('it is a FIFO (named pipe)');
    expect(refusal(() => loadProjectConfig(work, {}, '/dev/zero', me))).toContain('it is a character device, not a regular file');
    const big = join(root, 'big.yaml');
    writeFileSync(big, `# ${'x'.repeat(MAX_CONFIG_BYTES)}\n`);
    expect(refusal(() => loadProjectConfig(work, {}, big, me))).toContain(`a config file is at most ${MAX_CONFIG_BYTES} bytes`);
  });
});
