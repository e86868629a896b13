// ralph.config.yaml: found upward, validated with file:line and did-you-mean, ${VAR} expanded,
// secrets recorded; the template `ralph init` writes is valid and changes nothing.
import { STREAM_FORMATS } from '../../src/plan/types.js';
import { AGENT_PRESETS } from '../../src/agents/index.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_TEMPLATE, findConfigFile, loadProjectConfig, parseProjectConfig } from '../../src/config/index.js';
import { InvalidInputError, formatProblem } from '../../src/errors.js';
import { resolveConfig } from '../../src/loop/run-config.js';
import { parsePlan } from '../../src/plan/index.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const tempDir = tempDirs();

function problemsOf(text: string, env: NodeJS.ProcessEnv = {}): string[] {
  try {
    parseProjectConfig(text, '/p/ralph.config.yaml', env);
  } catch (error) {
    if (error instanceof InvalidInputError) return error.problems.map(formatProblem);
    throw error;
  }
  return [];
}

describe('finding the config file', () => {
  it('is the nearest ralph.config.yaml in the folder or above it', () => {
    const root = tempDir('ralph-config-');
    const deep = join(root, 'a', 'b');
    mkdirSync(deep, { recursive: true });
    expect(findConfigFile(deep)).toBeNull();
    writeFileSync(join(root, 'ralph.config.yaml'), 'agent: claude\n');
    expect(findConfigFile(deep)).toBe(join(root, 'ralph.config.yaml'));
    writeFileSync(join(root, 'a', 'ralph.config.yaml'), 'agent: codex\n');
    expect(loadProjectConfig(deep, {}).agent).toBe('codex');
    expect(loadProjectConfig(deep, {}, join(root, 'ralph.config.yaml')).agent).toBe('claude');
  });
});

describe('validation', () => {
  it('names the line of an unknown key and suggests the known one', () => {
    const text = ['agents:', '  mine:', '    command: [x]', '    streamformat: text', 'defaults:', '  max_iteration: 3', 'notfy: []', ''].join('\n');
    expect(problemsOf(text)).toEqual([
      expect.stringMatching(/^.*ralph\.config\.yaml:4: unknown key "streamformat" in agents\.mine \(did you mean "stream_format"\?\)$/),
      expect.stringMatching(/:6: unknown key "max_iteration" in defaults \(did you mean "max_iterations"\?\)$/),
      expect.stringMatching(/:7: unknown key "notfy" \(did you mean "notify"\?\)$/),
    ]);
  });

  it('reports wrong values at their lines, all at once', () => {
    const text = ['defaults:', '  max_iterations: 0', '  silence_timeout: soon', 'agents:', '  x:', '    command: []', '    stream_format: xml', 'notify:', '  - webhook: ftp://x', '  - slack: https://hooks.slack.com/a', '    secret: k', '  - events: [ended]', ''].join('\n');
    const problems = problemsOf(text);
    expect(problems).toEqual([
      expect.stringMatching(/:2: defaults\.max_iterations: expected a whole number from 1 to 10000$/),
      expect.stringMatching(/:3: defaults\.silence_timeout: expected a duration/),
      expect.stringMatching(/:6: agents\.x\.command: is empty/),
      expect.stringMatching(new RegExp(`:7: agents\\.x\\.stream_format: expected one of ${STREAM_FORMATS.join(', ')}, got "xml"$`)),
      expect.stringMatching(/:9: notify\[0\]\.webhook: expected an http/),
      expect.stringMatching(/:11: notify\[1\]\.secret: `secret` does not apply to a slack target$/),
      expect.stringMatching(/:12: notify\[2\]: a target needs one of webhook, slack, ntfy, command$/),
    ]);
  });

  it('holds defaults to the same ranges as flags and front matter', () => {
    const text = ['defaults:', '  max_iterations: 1000000000', '  concurrency: 100000', '  plan_timeout: 90d', '  max_stalls: 2', ''].join('\n');
    expect(problemsOf(text)).toEqual([
      expect.stringMatching(/:2: defaults\.max_iterations: expected a whole number from 1 to 10000$/),
      expect.stringMatching(/:3: defaults\.concurrency: expected a whole number from 1 to 256$/),
      expect.stringMatching(/:4: defaults\.plan_timeout: expected a duration from /),
    ]);
  });

  it('the default agent must be one of the agents or presets', () => {
    const known = [...Object.keys(AGENT_PRESETS), 'mine'].sort().join(', ');
    expect(problemsOf('agents:\n  mine:\n    command: [x]\nagent: mien\n')).toEqual([expect.stringContaining(`:4: agent: no agent named "mien" in agents: or the presets (known: ${known})`)]);
    expect(problemsOf('agent: codex\n')).toEqual([]);
  });

  it('reports YAML syntax errors with their line', () => {
    expect(problemsOf('agents:\n  x: [a, b\n')[0]).toMatch(/ralph\.config\.yaml:\d+: /);
    expect(problemsOf('- a\n- b\n')).toEqual([expect.stringMatching(/:1: expected a mapping of settings/)]);
    expect(problemsOf('hooks:\n  on_outcome: [1]\n')).toEqual([expect.stringMatching(/:2: hooks\.on_outcome\[0\]: expected a shell command, or \{ run: <command>, timeout: <duration> \}, got 1$/)]);
    expect(problemsOf('agents: &a\n  x: *a\n')).toEqual([expect.stringMatching(/:1: an alias \(\*name\) refers to the value that contains it/)]);
  });

  it('expands ${VAR}, takes ${VAR:-fallback}, and names an unset variable at its line', () => {
    const text = ['notify:', '  - slack: ${SLACK_URL}', '  - ntfy: ${NTFY:-}', '  - webhook: https://x.test/${MISSING}', 'hooks:', `  on_outcome: 'curl -H "token: \${TOKEN}" https://x.test'`, ''].join('\n');
    expect(problemsOf(text, { SLACK_URL: 'https://hooks.slack.com/services/T/B/xyz', TOKEN: 'tok-123456' })).toEqual([
      expect.stringMatching(/:4: \$\{MISSING\} is not set in the environment; export it, or write \$\{MISSING:-\}/),
    ]);
    const config = parseProjectConfig(text.replace('${MISSING}', 'fixed'), '/p/ralph.config.yaml', { SLACK_URL: 'https://hooks.slack.com/services/T/B/xyz', TOKEN: 'tok-123456' });
    expect(config.notify[0]).toMatchObject({ slack: 'https://hooks.slack.com/services/T/B/xyz' });
    expect(config.notify[1]).toMatchObject({ ntfy: '' });
    expect(config.hooks.on_outcome).toEqual([{ run: 'curl -H "token: tok-123456" https://x.test' }]);
    expect(config.secrets.vars.sort()).toEqual(['NTFY', 'SLACK_URL', 'TOKEN']);
    expect(config.secrets.values.sort()).toEqual(['https://hooks.slack.com/services/T/B/xyz', 'tok-123456']);
  });

  it('leaves ${RALPH_…} to the shell of the hook: those facts exist only when it runs', () => {
    const config = parseProjectConfig("hooks:\n  on_outcome: 'echo ${RALPH_PLAN_ID} $${HOME} ${HOME}'\n", '/p/ralph.config.yaml', { HOME: '/home/x' });
    expect(config.hooks.on_outcome).toEqual([{ run: 'echo ${RALPH_PLAN_ID} ${HOME} /home/x' }]);
    expect(config.secrets.vars).toEqual(['HOME']);
  });

  it('keeps the file:line of every setting for `ralph config`', () => {
    const config = parseProjectConfig(['agent: mine', 'agents:', '  mine:', '    command: [run-me]', 'defaults:', '  max_iterations: 4', ''].join('\n'), '/p/ralph.config.yaml', {});
    expect(config.where).toMatchObject({ agent: expect.stringMatching(/:1$/), 'agents.mine': expect.stringMatching(/:3$/), 'defaults.max_iterations': expect.stringMatching(/:6$/) });
    expect(config.exec).toEqual({ maxIterations: 4 });
    expect(config.agents).toEqual({ mine: { command: ['run-me'], streamFormat: 'text' } });
  });

  it('the template `ralph init` writes loads and sets nothing', () => {
    const config = parseProjectConfig(CONFIG_TEMPLATE, '/p/ralph.config.yaml', {});
    expect(config.agents).toEqual({});
    expect(config.exec).toEqual({});
    expect(config.notify).toEqual([]);
    expect(config.hooks).toEqual({});
    // Uncommented, every example is valid too.
    const uncommented = CONFIG_TEMPLATE.split('\n')
      .map((l) => l.replace(/^(\s*)# ?(?=[a-z_ -]+:|\s*- |\s+[a-z_]+:)/, '$1'))
      .join('\n');
    const full = parseProjectConfig(uncommented, '/p/ralph.config.yaml', { SLACK_WEBHOOK: 'https://hooks.slack.com/x', RALPH_WEBHOOK_SECRET: 'k', NTFY_TOPIC: 't' });
    expect(full.agent).toBe('claude');
    expect(Object.keys(full.agents)).toEqual(['claude', 'codex']);
    expect(full.notify).toHaveLength(4);
    expect(Object.keys(full.hooks)).toHaveLength(5);
    // Its comment names every stream format an agent can have.
    const formats = CONFIG_TEMPLATE.split('\n').find((l) => l.includes('stream_format:'))!.split('#').at(-1)!.split('|').map((f) => f.trim());
    expect(formats).toEqual([...STREAM_FORMATS]);
  });
});

describe('precedence: flags > front matter > config file > defaults', () => {
  const plan = (fm: string) => parsePlan(`---\n${fm}\n---\n# P\n<tasks><task><name>T</name></task></tasks>\n`, '/p/plan.md').plan!;
  const project = parseProjectConfig(
    ['agent: mine', 'agents:', '  mine:', '    command: [my-agent, --flag]', '    stream_format: claude-json', 'defaults:', '  max_iterations: 7', '  max_bailouts: 1', '  silence_timeout: 2m', ''].join('\n'),
    '/p/ralph.config.yaml',
    {},
  );

  it('the config fills what flags and plan leave open, and its default agent runs', () => {
    const c = resolveConfig({ planPath: '/p/plan.md', cwd: '/p' }, plan('id: x'), {}, project);
    expect(c).toMatchObject({ executor: 'command', command: ['my-agent', '--flag'], streamFormat: 'claude-json', maxIterations: 7, maxBailouts: 1, silenceTimeoutMs: 120_000 });
  });

  it('front matter wins over the config, flags win over both', () => {
    const c = resolveConfig({ planPath: '/p/plan.md', cwd: '/p', maxBailouts: 5 }, plan('max_iterations: 2\nmax_bailouts: 4'), {}, project);
    expect(c).toMatchObject({ maxIterations: 2, maxBailouts: 5 });
  });

  it("the plan's own command wins over the config's default agent", () => {
    const c = resolveConfig({ planPath: '/p/plan.md', cwd: '/p' }, plan('command: [plan-agent]'), {}, project);
    expect(c).toMatchObject({ command: ['plan-agent'], streamFormat: 'text' });
    expect(c.agent).toBeUndefined();
  });

  it('--agent NAME finds the config agent before the presets, and -- args are appended', () => {
    const withClaude = parseProjectConfig('agents:\n  claude:\n    command: [my-claude]\n', '/p/ralph.config.yaml', {});
    const c = resolveConfig({ planPath: '/p/plan.md', cwd: '/p', agent: 'claude', command: ['--extra'] }, plan('id: x'), {}, withClaude);
    expect(c).toMatchObject({ command: ['my-claude', '--extra'], streamFormat: 'text' });
  });
});
