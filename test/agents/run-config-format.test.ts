// Which stream format a run reads its agent with, and where that choice came from (docs/agents.md,
// "Which stream format").
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/loop/run-config.js';
import { parsePlan } from '../../src/plan/parse-plan.js';

const plan = (frontMatter = '') => parsePlan(`---\nid: p\n${frontMatter}---\n# P\n\n<tasks>\n<task><name>T</name></task>\n</tasks>\n`, '/tmp/p.md').plan!;

describe('the stream format of a run', () => {
  it.each([
    ['the flag wins', { streamFormat: 'text' as const, command: ['claude', '-p', '--output-format', 'stream-json'] }, '', ['text', 'flag']],
    ['the preset', { agent: 'codex' }, 'stream_format: text\n', ['codex-json', 'preset']],
    ["the plan's stream_format", { command: ['claude', '-p', '--output-format', 'stream-json'] }, 'stream_format: text\n', ['text', 'plan']],
    ['chosen from the command', { command: ['claude', '-p', '--output-format', 'stream-json', '--verbose'] }, '', ['claude-json', 'command']],
    ["from the plan's command", {}, 'command: [opencode, run, --format, json]\n', ['opencode-json', 'command']],
    ['the default', { command: ['my-agent'] }, '', ['text', 'default']],
  ])('%s', (_, options, frontMatter, [format, chosen]) => {
    const config = resolveConfig({ planPath: '/tmp/p.md', cwd: '/tmp', ...options }, plan(frontMatter), {});
    expect([config.streamFormat, config.formatChosen]).toEqual([format, chosen]);
  });
});
