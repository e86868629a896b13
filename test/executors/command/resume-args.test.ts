import { describe, expect, it } from 'vitest';
import { argsForRun } from '../../../src/executors/command/resume-args.js';

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
  ] as const)('%s %j with session %s → %j', (format, args, session, expected) => {
    expect(argsForRun(format, args, session)).toEqual(expected);
  });

  it('never changes the arguments it was given', () => {
    const args = ['exec', '--json', '-'];
    argsForRun('codex-json', args, 'T1');
    expect(args).toEqual(['exec', '--json', '-']);
  });
});
