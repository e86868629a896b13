// `ralph config` as a user runs it (the built CLI): each setting with where it came from (flag,
// plan, the config file's line, default), and no secret in what it prints. `--notify` refuses
// what is not a target.
import { AGENT_PRESETS } from '../../src/agents/index.js';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRalph, type Ran } from '../helpers/run-ralph.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const tempDir = tempDirs();

function ralph(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return runRalph(args, { cwd, env: { ANTHROPIC_API_KEY: '', ...env } });
}

function project(): string {
  const dir = tempDir('ralph-config-cli-');
  writeFileSync(
    join(dir, 'ralph.config.yaml'),
    [
      'agent: mine',
      'agents:',
      '  mine:',
      '    command: [my-agent, --go]',
      '    stream_format: claude-json',
      'defaults:',
      '  max_iterations: 7',
      '  max_bailouts: 1',
      '  concurrency: 3',
      'notify:',
      '  - slack: ${RALPH_TEST_SLACK}',
      '    events: [blocked]',
      'hooks:',
      '  on_outcome: ./notify.sh ${RALPH_TEST_TOKEN}',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'plan.md'), '---\nmax_bailouts: 2\n---\n# P\n<tasks><task><name>T</name></task></tasks>\n');
  return dir;
}

const SECRETS = { RALPH_TEST_SLACK: 'https://hooks.slack.com/services/T/B/slack-secret', RALPH_TEST_TOKEN: 'token-secret-42' };

describe('ralph config', () => {
  it('shows each setting in effect and where it came from', async () => {
    const dir = project();
    const r = await ralph(['config', 'plan.md', '--max-iterations', '9', '--isolate', 'none', '--json'], dir, SECRETS);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const shown = JSON.parse(r.stdout);
    expect(shown.file).toBe(join(dir, 'ralph.config.yaml'));
    const row = (name: string) => shown.settings.find((s: { setting: string }) => s.setting === name);
    expect(row('max_iterations')).toEqual({ setting: 'max_iterations', value: '9', source: 'flag' });
    expect(row('max_bailouts')).toEqual({ setting: 'max_bailouts', value: '2', source: 'plan' });
    expect(row('concurrency')).toEqual({ setting: 'concurrency', value: '3', source: 'ralph.config.yaml:9' });
    expect(row('context_budget')).toMatchObject({ source: 'default' });
    expect(row('isolate')).toEqual({ setting: 'isolate', value: 'none', source: 'flag' });
    expect(row('agent')).toEqual({ setting: 'agent', value: 'mine', source: 'ralph.config.yaml:1' });
    expect(row('executor')).toMatchObject({ value: 'command' });
    expect(shown.agents[0]).toEqual({ name: 'mine', command: ['my-agent', '--go'], streamFormat: 'claude-json', source: 'ralph.config.yaml:3' });
    expect(shown.agents.map((a: { name: string; source: string }) => `${a.name}:${a.source}`)).toEqual(['mine:ralph.config.yaml:3', ...Object.keys(AGENT_PRESETS).map((name) => `${name}:preset`)]);
    expect(shown.notify).toEqual([{ target: 'notify[0] slack hooks.slack.com', events: ['blocked'] }]);
    expect(shown.hooks).toEqual([{ hook: 'on_outcome', run: './notify.sh [secret]', source: 'ralph.config.yaml:14' }]);
    expect(shown.secrets.sort()).toEqual(['RALPH_TEST_SLACK', 'RALPH_TEST_TOKEN']);
  });

  it('prints a table without secrets', async () => {
    const dir = project();
    const r = await ralph(['config'], dir, SECRETS);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^max_iterations +7 +ralph\.config\.yaml:7$/m);
    expect(r.stdout).toMatch(/^max_bailouts +1 +ralph\.config\.yaml:8$/m);
    expect(r.stdout).not.toContain('slack-secret');
    expect(r.stdout).not.toContain('token-secret-42');
  });

  it('says when there is no config file', async () => {
    const dir = tempDir('ralph-config-none-');
    const r = await ralph(['config'], dir);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('config file: none (no ralph.config.yaml in');
    expect(r.stdout).toMatch(/^max_iterations +20 +default$/m);
  });

  it('the API key ralph holds out of its environment chooses anthropic, as exec does', async () => {
    const dir = tempDir('ralph-config-key-');
    const r = await ralph(['config', '--json'], dir, { ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key' });
    expect(r.code).toBe(0);
    const shown = JSON.parse(r.stdout);
    expect(shown.settings.find((s: { setting: string }) => s.setting === 'executor')).toEqual({ setting: 'executor', value: 'anthropic', source: 'environment (ANTHROPIC_API_KEY)' });
    expect(r.stdout).not.toContain('sk-ant-test-not-a-key');
  });

  it('shows the run-time and retry defaults, and --max-runtime none as none', async () => {
    const dir = tempDir('ralph-config-limits-');
    const byDefault = await ralph(['config'], dir);
    expect(byDefault.code).toBe(0);
    expect(byDefault.stdout).toMatch(/^max_runtime +8h +default$/m);
    expect(byDefault.stdout).toMatch(/^max_retries +2 +default$/m);
    const lifted = await ralph(['config', '--max-runtime', 'none'], dir);
    expect(lifted.code).toBe(0);
    expect(lifted.stdout).toMatch(/^max_runtime +none +flag$/m);
  });

  it('--notify that is not a target is a usage error (64)', async () => {
    const dir = project();
    const r = await ralph(['exec', 'plan.md', '--notify', 'ftp://x', '--', 'true'], dir, SECRETS);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('--notify: only http and https URLs can be notified');
  });
});
