// The policy and the reading of refusals, as pure functions (docs/sandbox.md).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentHosts, agentNeeds, NO_AGENT, placeState } from '../../src/sandbox/agent-needs.js';
import { decideSandbox } from '../../src/sandbox/open.js';
import { buildPolicy, mayWrite } from '../../src/sandbox/policy.js';
import { feedbackFor, isRuntimeProbe, parseViolation, RefusalTally } from '../../src/sandbox/refusals.js';
import { refusalOf } from '../../src/sandbox/run-sandbox.js';
import { withLoopbackProxied, withPrivateTmp } from '../../src/sandbox/runtime.js';
import { readSandboxValue, sandboxFromEnv, sandboxSettings } from '../../src/sandbox/settings.js';
import { HiddenReadScanner } from '../../src/sandbox/hidden-reads.js';
import { withDecoys } from '../../src/sandbox/decoys.js';

const claude = agentNeeds(['claude', '-p']);
const base = { tree: '/w/repo', home: '/h', tmp: '/tmp/ralph-sandbox-x', agent: claude, agentHosts: ['api.anthropic.com'] };

describe('the policy', () => {
  it('writes: the tree, the private temp folder, the agent state folders; .git/hooks, .git/config and .ralph stay read-only', () => {
    const p = buildPolicy(base);
    expect(p.write).toEqual(['/w/repo', '/tmp/ralph-sandbox-x', '/h/.claude', '/h/.claude.json']);
    expect(mayWrite(p, '/w/repo/src/a.ts')).toBe(true);
    expect(mayWrite(p, '/tmp/ralph-sandbox-x/t')).toBe(true);
    expect(mayWrite(p, '/h/.claude/projects/x.jsonl')).toBe(true);
    expect(mayWrite(p, '/w/repo/.git/hooks/pre-commit')).toBe(false);
    expect(mayWrite(p, '/w/repo/.git/config')).toBe(false);
    expect(mayWrite(p, '/w/repo/.ralph/runs/r/result.json')).toBe(false);
    expect(mayWrite(p, '/w/repo-other/x')).toBe(false);
    expect(mayWrite(p, '/h/.bashrc')).toBe(false);
    expect(mayWrite(p, '/tmp/other')).toBe(false);
    // On Linux each command has its own /dev and /proc (Qwen Code opens a terminal on /dev/ptmx).
    expect(mayWrite(p, '/dev/ptmx')).toBe(process.platform === 'linux');
    expect(mayWrite(p, '/dev/shm/x')).toBe(process.platform === 'linux');
    expect(mayWrite(p, '/devices/x')).toBe(false);
  });

  it('hides the usual secrets; deny_read adds, allow_read gives back; allow_write and allow_hosts add', () => {
    const p = buildPolicy({ ...base, denyRead: ['~/clients', 'secrets'], allowRead: ['~/.npmrc'], allowWrite: ['~/.cache/pip'], allowHosts: ['registry.npmjs.org'] });
    for (const s of ['/h/.ssh', '/h/.aws', '/h/.config/gh', '/h/.netrc', '/h/.docker/config.json', '/h/.kube', '/h/.gnupg']) expect(p.hidden).toContain(s);
    expect(p.hidden).toContain('/h/clients');
    expect(p.hidden).toContain('/w/repo/secrets');
    expect(p.hidden).not.toContain('/h/.npmrc');
    expect(p.write).toContain('/h/.cache/pip');
    expect(p.hosts).toEqual(['api.anthropic.com', 'registry.npmjs.org']);
  });

  it('a worktree commits into the repository git folder, whose hooks and config stay read-only', () => {
    const p = buildPolicy({ ...base, gitCommonDir: '/w/main/.git' });
    expect(mayWrite(p, '/w/main/.git/objects/ab/cdef')).toBe(true);
    expect(mayWrite(p, '/w/repo/.git')).toBe(false);
    expect(mayWrite(p, '/w/main/.git/hooks/pre-commit')).toBe(false);
    expect(mayWrite(p, '/w/main/.git/config')).toBe(false);
  });

  it('a plan and summary outside the tree are writable; inside it nothing is added', () => {
    expect(buildPolicy({ ...base, planFiles: ['/plans/a.md', '/w/repo/b.md'] }).write).toContain('/plans/a.md');
    expect(buildPolicy({ ...base, planFiles: ['/w/repo/b.md'] }).write).not.toContain('/w/repo/b.md');
  });

  it("each agent's hosts, with its base-URL variable's host; the anthropic executor's tools get none", () => {
    expect(agentHosts(claude, { ANTHROPIC_BASE_URL: 'http://127.0.0.1:4010/v1' })).toContain('127.0.0.1:4010');
    expect(agentHosts(agentNeeds(['/usr/local/bin/codex', 'exec']), {})).toContain('api.openai.com');
    expect(agentHosts(agentNeeds(['node', 'agent.mjs']), {})).toEqual([]);
    expect(agentHosts(NO_AGENT, { ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' })).toEqual([]);
  });

  it("codex runs without its own sandbox inside ralph's", () => {
    const codex = agentNeeds(['codex'], 'codex');
    expect(codex.adjustArgs!(['exec', '--json', '--sandbox', 'workspace-write', '--skip-git-repo-check'])).toEqual(['exec', '--dangerously-bypass-approvals-and-sandbox', '--json', '--skip-git-repo-check']);
  });

  it("an agent that follows the XDG base directories may write its state where they move it", () => {
    const opencode = placeState(agentNeeds(['opencode'], 'opencode'), { XDG_CACHE_HOME: '/c', XDG_DATA_HOME: 'relative/ignored' });
    expect(opencode.stateDirs).toEqual(['.local/share/opencode', '.config/opencode', '/c/opencode', '.local/state/opencode']);
    const p = buildPolicy({ ...base, agent: opencode, agentHosts: [] });
    expect(mayWrite(p, '/c/opencode/bin/x')).toBe(true);
    expect(mayWrite(p, '/h/.local/share/opencode/db')).toBe(true);
    expect(mayWrite(p, '/h/.cache/opencode/x')).toBe(false);
    // Claude Code keeps ~/.claude whatever XDG says.
    expect(placeState(claude, { XDG_CONFIG_HOME: '/c' }).stateDirs).toEqual(['.claude']);
  });
});

describe('settings', () => {
  it('flag over RALPH_SANDBOX over plan over config over auto; lists add up', () => {
    expect(sandboxSettings(undefined, undefined, undefined)).toMatchObject({ mode: 'auto', modeFrom: 'default' });
    expect(sandboxSettings(undefined, { mode: 'off' }, { mode: 'on', allowHosts: ['a.com'] })).toMatchObject({ mode: 'off', modeFrom: 'plan', allowHosts: ['a.com'] });
    expect(sandboxSettings(undefined, { allowHosts: ['b.com'] }, { mode: 'on', allowHosts: ['a.com'] })).toMatchObject({ mode: 'on', modeFrom: 'config', allowHosts: ['a.com', 'b.com'] });
    expect(sandboxSettings(undefined, { mode: 'on' }, undefined, 'off')).toMatchObject({ mode: 'off', modeFrom: 'environment' });
    expect(sandboxSettings('on', { mode: 'off' }, undefined, 'off')).toMatchObject({ mode: 'on', modeFrom: 'flag' });
  });

  it('reads sandbox: as written, and says what is wrong', () => {
    expect(readSandboxValue('off', 'sandbox')).toEqual({ layer: { mode: 'off' } });
    expect(readSandboxValue(true, 'sandbox')).toEqual({ layer: { mode: 'on' } });
    expect(readSandboxValue({ allow_hosts: ['registry.npmjs.org', '127.0.0.1:8080', '*.pythonhosted.org'] }, 'sandbox')).toEqual({ layer: { allowHosts: ['registry.npmjs.org', '127.0.0.1:8080', '*.pythonhosted.org'] } });
    expect(readSandboxValue('yes', 'sandbox')).toEqual({ problem: 'sandbox: expected on, off or auto, got "yes"' });
    expect(readSandboxValue({ allow_hosts: ['https://x.com/'] }, 'sandbox')).toMatchObject({ problem: expect.stringMatching(/is not a host/) });
    expect(readSandboxValue({ allow_host: ['x'] }, 'sandbox')).toMatchObject({ problem: expect.stringMatching(/unknown key "allow_host"/) });
    expect(() => sandboxFromEnv({ RALPH_SANDBOX: 'maybe' })).toThrow(/RALPH_SANDBOX/);
    expect(sandboxFromEnv({ RALPH_SANDBOX: '' })).toBeUndefined();
  });

  it('on where it cannot start is refused with what to install; auto goes on with a warning; off asks nothing', () => {
    const missing = () => ({ ok: false as const, problem: 'bubblewrap (bwrap) not installed', install: 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)' });
    expect(() => decideSandbox({ mode: 'on', modeFrom: 'flag' }, missing)).toThrow(/--sandbox on: the sandbox cannot start here \(bubblewrap \(bwrap\) not installed\): install bubblewrap/);
    expect(decideSandbox({ mode: 'auto', modeFrom: 'default' }, missing)).toMatchObject({ on: false, warning: expect.stringMatching(/WITHOUT a sandbox.*install bubblewrap/) });
    expect(decideSandbox({ mode: 'off', modeFrom: 'plan' }, () => { throw new Error('not asked'); })).toEqual({ on: false, why: "off (from the plan's sandbox:)" });
  });
});

describe('refusals', () => {
  it('reads the library violation lines', () => {
    expect(parseViolation('deny openat /h/.bashrc')).toEqual({ what: 'write', target: '/h/.bashrc' });
    expect(parseViolation('deny renameat2 /w/a -> /h/b')).toEqual({ what: 'write', target: '/w/a' });
    expect(parseViolation('deny network-outbound 127.0.0.1:5432 (host is not on the allow list)')).toEqual({ what: 'network', target: '127.0.0.1:5432' });
    expect(parseViolation('deny(1) file-read-data /Users/u/.ssh/id_rsa')).toEqual({ what: 'read', target: '/Users/u/.ssh/id_rsa' });
    expect(parseViolation('something else')).toBeUndefined();
  });

  it("a runtime's probe at every start is no refusal of the agent's (Bun's trace marker)", () => {
    expect(isRuntimeProbe(parseViolation('deny openat /sys/kernel/debug/tracing/trace_marker')!)).toBe(true);
    expect(isRuntimeProbe(parseViolation('deny openat /sys/kernel/debug/tracing/tracing_on')!)).toBe(false);
  });

  it('what a violation line means for the run: allowed writes, folders already there and probes are none; a state file replaced beside it counts as the file', () => {
    const home = mkdtempSync(join(tmpdir(), 'ralph-refusal-home-'));
    try {
      const p = buildPolicy({ ...base, home });
      const of = (line: string) => refusalOf(line, p, claude, home);
      expect(of(`deny openat ${home}/.bashrc`)).toEqual({ what: 'write', target: `${home}/.bashrc` });
      expect(of(`deny openat ${home}/.claude/projects/x.jsonl`)).toBeUndefined();
      expect(of('deny openat /sys/kernel/debug/tracing/trace_marker')).toBeUndefined();
      // `mkdir -p` of the home folder, which is there: nothing was refused.
      expect(of(`deny mkdir ${home}`)).toBeUndefined();
      expect(of(`deny mkdir ${home}/new`)).toEqual({ what: 'write', target: `${home}/new` });
      // Claude Code's lock and temp files beside ~/.claude.json: that file, whatever their names.
      expect(of(`deny mkdir ${home}/.claude.json.lock`)).toEqual({ what: 'write', target: `${home}/.claude.json` });
      expect(of(`deny unlink ${home}/.claude.json.tmp.2.d634351e153c`)).toEqual({ what: 'write', target: `${home}/.claude.json` });
      expect(of('deny network-outbound example.com:443')).toEqual({ what: 'network', target: 'example.com:443' });
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('counts repeats per target, bounded', () => {
    const t = new RefusalTally([], 2);
    expect(t.add({ what: 'write', target: '/a' })).toBe(1);
    expect(t.add({ what: 'write', target: '/a' })).toBe(2);
    expect(t.add({ what: 'read', target: '/b' })).toBe(1);
    expect(t.add({ what: 'read', target: '/c' })).toBeUndefined();
    expect(t.count).toBe(4);
    expect(t.list()).toEqual([{ what: 'write', target: '/a', count: 2 }, { what: 'read', target: '/b', count: 1 }]);
  });

  it('the next prompt says what is refused and what was not done', () => {
    const line = feedbackFor([{ what: 'write', target: '/h/.bashrc', count: 3 }, { what: 'network', target: 'evil.com:443', count: 1 }], '/h')!;
    expect(line).toMatch(/writes outside the working tree .* are refused/);
    expect(line).toContain('`~/.bashrc` was not written (3 tries)');
    expect(line).toContain('`evil.com:443` was not reached');
    expect(feedbackFor([], '/h')).toBeUndefined();
  });

  it('a read of a hidden secret is seen in the output that complains of it', () => {
    const seen: string[] = [];
    const s = new HiddenReadScanner(['/h/.ssh'], (r) => seen.push(`${r.what} ${r.target}`));
    s.push("cat: /h/.ssh/id_rs");
    s.push("a: No such file or directory\nplain mention of /h/.ssh/config\n");
    s.push(Buffer.from("Error: ENOENT: no such file or directory, open '/h/.ssh/id_ed25519'\n"));
    expect(seen).toEqual(['read /h/.ssh/id_rsa', 'read /h/.ssh/id_ed25519']);
    // Among many lines, in one chunk, with a complaint line cut across two chunks.
    const quiet = 'compiling /h/.ssh is mentioned here without a complaint\n'.repeat(1000);
    s.push(`${quiet}cat: /h/.ssh/known_hosts: Permission denied\n${quiet}ls: /h/.ssh/a: No such`);
    s.push(` file or directory\n${quiet}`);
    expect(seen.slice(2)).toEqual(['read /h/.ssh/known_hosts', 'read /h/.ssh/a']);
  });
});

describe("the library's command, adjusted", () => {
  const wrapped = "bwrap --setenv TMPDIR /tmp/claude --setenv NO_PROXY localhost,127.0.0.1,::1,10.0.0.0/8 --setenv no_proxy localhost,127.0.0.1,::1,10.0.0.0/8 --ro-bind / / --tmpfs /h/.ssh --ro-bind /dev/null /h/.netrc -- sh";
  it('loopback goes through the proxy when an allowed host is on loopback', () => {
    expect(withLoopbackProxied(wrapped, ['127.0.0.1:4010'])).toContain('--setenv NO_PROXY 10.0.0.0/8 --setenv no_proxy 10.0.0.0/8 ');
    expect(withLoopbackProxied(wrapped, ['api.anthropic.com'])).toBe(wrapped);
  });
  it('TMPDIR is the run’s own', () => {
    expect(withPrivateTmp(wrapped, '/tmp/ralph-sandbox-ab')).toContain('--setenv TMPDIR /tmp/ralph-sandbox-ab ');
  });
  it('hidden folders and files get their stand-ins', () => {
    const out = withDecoys(wrapped, [
      { real: '/h/.ssh', standIn: '/tmp/d/0', isDirectory: true },
      { real: '/h/.netrc', standIn: '/tmp/d/1', isDirectory: false },
    ]);
    expect(out).toContain(' --bind /tmp/d/0 /h/.ssh ');
    expect(out).toContain(' --bind /tmp/d/1 /h/.netrc ');
    expect(out).not.toContain('--tmpfs /h/.ssh');
  });
});
