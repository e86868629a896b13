import { describe, expect, it } from 'vitest';
import { formatFromCommand } from '../../src/agents/detect-format.js';

describe('formatFromCommand', () => {
  it.each([
    [['claude', '-p', '--output-format', 'stream-json', '--verbose'], 'claude-json'],
    [['/usr/local/bin/claude', '-p', '--output-format=stream-json'], 'claude-json'],
    [['claude', '-p'], undefined],
    [['claude', '-p', '--output-format', 'json'], undefined],
    [['codex', 'exec', '--json', '--sandbox', 'workspace-write'], 'codex-json'],
    [['codex', 'exec'], undefined],
    [['gemini', '-o', 'stream-json'], 'gemini-json'],
    [['qwen', '--output-format', 'stream-json'], 'qwen-json'],
    [['opencode', 'run', '--format', 'json'], 'opencode-json'],
    [['opencode', 'run'], undefined],
    [['cursor-agent', '-p', '--output-format', 'stream-json'], 'cursor-json'],
    [['amp', '-x', '--stream-json'], 'amp-json'],
    [['my-agent.sh', '--output-format', 'stream-json'], undefined],
    [[], undefined],
  ] as const)('%j → %s', (command, format) => {
    expect(formatFromCommand(command)).toBe(format);
  });
});
