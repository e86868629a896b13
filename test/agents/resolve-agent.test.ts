import { describe, expect, it } from 'vitest';
import { AGENT_PRESETS, resolveAgent } from '../../src/agents/index.js';
import { UsageError } from '../../src/errors.js';

describe('resolveAgent', () => {
  it('expands a preset to its command and stream format, with extra args appended', () => {
    const agent = resolveAgent('claude', ['--model', 'opus']);
    expect(agent.command).toEqual([...AGENT_PRESETS.claude!.command, '--model', 'opus']);
    expect(agent.streamFormat).toBe('claude-json');
  });

  it('prefers an agent of the same name from the config file', () => {
    const agent = resolveAgent('claude', [], { claude: { command: ['my-claude'], streamFormat: 'text' } });
    expect(agent).toEqual({ name: 'claude', command: ['my-claude'], streamFormat: 'text' });
  });

  it('names the known agents when the name is unknown, and never reads inherited keys', () => {
    expect(() => resolveAgent('nope')).toThrow(UsageError);
    expect(() => resolveAgent('nope')).toThrow(/unknown agent "nope"/);
    expect(() => resolveAgent('toString')).toThrow(UsageError);
    try {
      resolveAgent('nope', [], { mine: { command: ['x'], streamFormat: 'text' } });
    } catch (error) {
      expect((error as UsageError).hint).toContain('claude, codex, gemini, mine');
    }
  });
});
