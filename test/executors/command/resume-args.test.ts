import { describe, expect, it } from 'vitest';
import { argsForRun, budgetArgs } from '../../../src/executors/command/resume-args.js';

describe('argsForRun', () => {
  it.each([
    ['claude-json', ['-p', '--output-format', 'stream-json', '--verbose'], undefined, ['-p', '--output-format', 'stream-json', '--verbose']],
    ['claude-json', ['-p', '--verbose'], 'S1', ['-p', '--verbose', '--resume', 'S1']],
    ['claude-json', ['-p', '--continue'], 'S1', ['-p', '--continue']],
    ['claude-json', ['-p', '--session-id=abc'], 'S1', ['-p', '--session-id=abc']],
    ['codex-json', ['exec', '--json', '--full-auto'], 'T1', ['exec', '--json', '--full-auto', 'resume', 'T1']],
    ['codex-json', ['exec', '--json', '-'], 'T1', ['exec', '--json', 'resume', 'T1', '-']],
    ['codex-json', ['exec', '--json', 'resume', '--last'], 'T1', ['exec', '--json', 'resume', '--last']],
    ['codex-json', ['exec', '--json'], undefined, ['exec', '--json']],
    ['text', ['--flag'], 'S1', ['--flag']],
    ['gemini-json', ['--output-format', 'stream-json'], 'G1', ['--output-format', 'stream-json', '--resume', 'G1']],
    ['opencode-json', ['run', '--format', 'json'], 'ses_1', ['run', '--format', 'json', '--session', 'ses_1']],
    ['opencode-json', ['run', '-s', 'mine'], 'ses_1', ['run', '-s', 'mine']],
    ['qwen-json', ['--output-format', 'stream-json'], 'Q1', ['--output-format', 'stream-json', '--resume', 'Q1']],
    ['cursor-json', ['-p'], 'C1', ['-p', '--resume', 'C1']],
    ['amp-json', ['-x', '--stream-json'], 'T-1', ['-x', '--stream-json']],
  ] as const)('%s %j with session %s → %j', (format, args, session, expected) => {
    expect(argsForRun(format, args, session)).toEqual(expected);
  });

  it('never changes the arguments it was given', () => {
    const args = ['exec', '--json', '-'];
    argsForRun('codex-json', args, 'T1');
    expect(args).toEqual(['exec', '--json', '-']);
  });
});

describe('budgetArgs', () => {
  it('hands Claude Code what is left of --max-cost; nothing for others, or when the command sets it', () => {
    expect(budgetArgs('claude-json', ['-p'], 0.3)).toEqual(['--max-budget-usd', '0.3000']);
    expect(budgetArgs('claude-json', ['-p', '--max-budget-usd', '1'], 0.3)).toEqual([]);
    expect(budgetArgs('claude-json', ['-p'], undefined)).toEqual([]);
    expect(budgetArgs('claude-json', ['-p'], 0)).toEqual([]);
    expect(budgetArgs('codex-json', ['exec'], 0.3)).toEqual([]);
  });
});
