// Where `ralph land` runs its checks (docs/deliver.md#checks-in-the-sandbox), as pure functions:
// the mode chosen as a run chooses it, `on` refused where the sandbox cannot start, `auto` warning
// once; the policy of a land check; and refusals in the landing report.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { chooseCheckSandboxes } from '../../src/deliver/land-sandbox.js';
import { renderLandReport, type LandReport } from '../../src/deliver/land-report.js';
import { checkPolicyOf } from '../../src/sandbox/check-sandbox.js';
import { mayWrite } from '../../src/sandbox/policy.js';

const here = () => ({ ok: true }) as const;
const nowhere = () => ({ ok: false, problem: 'bubblewrap (bwrap) not installed', install: 'install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)' }) as const;

describe('choosing the sandbox of each branch\'s checks', () => {
  it('flag over RALPH_SANDBOX over the plan over the config file; default auto', () => {
    const modes = (o: Parameters<typeof chooseCheckSandboxes>[0], env: NodeJS.ProcessEnv, plans: Parameters<typeof chooseCheckSandboxes>[2]) =>
      chooseCheckSandboxes(o, env, plans, here).choices.map((c) => [c.on, c.why]);
    expect(modes({}, {}, [undefined])).toEqual([[true, 'auto (the default)']]);
    expect(modes({ config: { mode: 'off' } }, {}, [undefined, { mode: 'on' }])).toEqual([
      [false, 'off (from ralph.config.yaml sandbox:)'],
      [true, "on (from the plan's sandbox:)"],
    ]);
    expect(modes({ config: { mode: 'off' } }, { RALPH_SANDBOX: 'on' }, [{ mode: 'off' }])).toEqual([[true, 'on (from RALPH_SANDBOX)']]);
    expect(modes({ flag: 'off' }, { RALPH_SANDBOX: 'on' }, [{ mode: 'on' }])).toEqual([[false, 'off (from --sandbox)']]);
  });

  it("a plan's hosts add to the config file's, for that plan's checks only", () => {
    const { choices } = chooseCheckSandboxes({ config: { allowHosts: ['registry.npmjs.org'] } }, {}, [{ allowHosts: ['pypi.org'] }, undefined], here);
    expect(choices.map((c) => c.settings.allowHosts)).toEqual([['registry.npmjs.org', 'pypi.org'], ['registry.npmjs.org']]);
  });

  it('on where it cannot start: a usage error (exit 64) naming what to install, before anything lands', () => {
    let error: unknown;
    try {
      chooseCheckSandboxes({ config: { mode: 'auto' } }, {}, [undefined, { mode: 'on' }], nowhere);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(64);
    expect((error as UsageError).message).toBe('--sandbox on: the sandbox cannot start here (bubblewrap (bwrap) not installed): install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap), or run with --sandbox off');
  });

  it('auto where it cannot start: every branch unsandboxed, one warning, the machine asked once', () => {
    let asked = 0;
    const r = chooseCheckSandboxes({}, {}, [undefined, undefined, { allowHosts: ['x.org'] }], () => (asked++, nowhere()));
    expect(r.choices.map((c) => c.on)).toEqual([false, false, false]);
    expect(r.warning).toMatch(/^running WITHOUT a sandbox: the sandbox cannot start here \(bubblewrap \(bwrap\) not installed\): install bubblewrap/);
    expect(asked).toBe(1);
    // off asks nothing and warns of nothing.
    expect(chooseCheckSandboxes({ flag: 'off' }, {}, [undefined], () => (asked++, nowhere()))).toEqual({ choices: [expect.objectContaining({ on: false })] });
    expect(asked).toBe(1);
  });
});

describe('the policy of a land check', () => {
  const p = checkPolicyOf({ settings: { allowHosts: ['registry.npmjs.org'], denyRead: [], allowRead: [], allowWrite: [] }, tree: '/r/.ralph/land/main/land-worktree', env: { HOME: '/h' } }, '/tmp/ralph-sandbox-x');

  it('writes the scratch tree and its temp folder, nothing else; the tree\'s .git and the repository stay read-only', () => {
    expect(p.write).toEqual(['/r/.ralph/land/main/land-worktree', '/tmp/ralph-sandbox-x']);
    expect(mayWrite(p, '/r/.ralph/land/main/land-worktree/dist/out.js')).toBe(true);
    expect(mayWrite(p, '/r/.ralph/land/main/land-worktree/.git')).toBe(false);
    expect(mayWrite(p, '/r/.git/refs/heads/main')).toBe(false);
    expect(mayWrite(p, '/r/.ralph/land/main/land.json')).toBe(false);
    expect(mayWrite(p, '/h/escape.txt')).toBe(false);
  });

  it('hides the usual secrets; reaches only sandbox.allow_hosts (no agent, so no API host)', () => {
    for (const s of ['/h/.ssh', '/h/.aws', '/h/.config/gh', '/h/.netrc', '/h/.npmrc']) expect(p.hidden).toContain(s);
    expect(p.hosts).toEqual(['registry.npmjs.org']);
  });
});

describe('refusals in the landing report', () => {
  it('each branch says whether its checks were sandboxed and lists what was refused, escaped', () => {
    const check = { kind: 'land' as const, command: 'npm test', exitCode: 0, timedOut: false, durationMs: 1200, tail: '' };
    const report: LandReport = {
      target: 'main',
      strategy: 'rebase',
      from: 'a'.repeat(40),
      to: 'b'.repeat(40),
      landed: [{ id: 'one', branch: 'one', commit: 'b'.repeat(40), checks: [check], sandbox: { on: true, why: 'on (from --sandbox)', denied: 3, refusals: [{ what: 'write', target: '/h/<img src=x>.txt', count: 2 }, { what: 'network', target: 'evil.example:443', count: 1 }] } }],
      unlanded: [],
      skipped: [],
      pushed: null,
      interrupted: false,
    };
    const md = renderLandReport(report);
    expect(md).toContain('Checks ran in the sandbox, --sandbox on \\(from --sandbox\\); it refused 3:');
    expect(md).toContain('- write to /h/&lt;img src=x&gt;.txt (2 times)');
    expect(md).toContain('- connection to evil.example:443\n');
    expect(md).not.toContain('<img');
    report.landed[0]!.sandbox = { on: false, why: 'auto (the default)', denied: 0, refusals: [] };
    expect(renderLandReport(report)).toContain('Checks ran without a sandbox, --sandbox auto \\(the default\\).');
  });
});
