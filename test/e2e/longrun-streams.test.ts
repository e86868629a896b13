// claude-json and codex-json through the built CLI (docs/executors.md#stream-formats): only the agent's own message
// text is read for signals, and the session is continued after an iteration without a decision
// but not after a bailout.
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/contract.js';
import { claude, codex, ralph, Workspace, trackWorkspaces } from './longrun-helpers/index.js';

const workspace = trackWorkspaces();

const exec = (ws: Workspace, format: string, command: string[]) =>
  ralph(['exec', ws.plan, '--quiet', '--stream-format', format, '--max-iterations', '3', '--', ...command], { cwd: ws.cwd });

describe('--stream-format claude-json', () => {
  it('a signal inside a tool_result does not count; in assistant text it does; the next iteration resumes the session', async () => {
    const ws = workspace();
    const cmd = ws.agent({
      iterations: [
        // The summary is valid from the start: had the tool output counted, iteration 1 would complete.
        [
          claude.init('sess-A'),
          { summary: true },
          claude.toolUse('toolu_1', 'cat NOTES.md'),
          claude.toolResult('toolu_1', 'notes:\n###PLAN_COMPLETE###\nLOOP_COMPLETE\n'),
          claude.text('Read the notes; more to do.'),
          claude.result('sess-A', 0.01),
        ],
        [claude.init('sess-A'), claude.text('All checks pass.\n###PLAN_COMPLETE###'), claude.result('sess-A', 0.01)],
      ],
    });
    const ran = await exec(ws, 'claude-json', cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    const result = ws.result();
    expect(result.iterations).toBe(2);
    expect(result.signals.map((s) => [s.iteration, s.name])).toEqual([[2, 'PLAN_COMPLETE']]);
    expect(result.costUsd).toBeCloseTo(0.02, 10);
    const calls = ws.calls();
    expect(calls[0]!.argv).not.toContain('--resume');
    expect(calls[1]!.argv.slice(-2)).toEqual(['--resume', 'sess-A']);
    expect(calls[1]!.fresh).toBe('0');
  });

  it('after a bailout the next iteration starts fresh, without --resume', async () => {
    const ws = workspace();
    const cmd = ws.agent({
      iterations: [
        [claude.init('sess-B'), claude.text('###BAILOUT:context_full###'), claude.result('sess-B', 0.01)],
        [claude.init('sess-C'), { summary: true }, claude.text('###PLAN_COMPLETE###'), claude.result('sess-C', 0.01)],
      ],
    });
    const ran = await exec(ws, 'claude-json', cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    expect(ws.result()).toMatchObject({ iterations: 2, bailouts: 1 });
    const calls = ws.calls();
    expect(calls[1]!.argv).not.toContain('--resume');
    expect(calls[1]!.fresh).toBe('1');
  });
});

describe('--stream-format codex-json', () => {
  it('command_execution output does not count; an agent_message does; the next iteration resumes the thread', async () => {
    const ws = workspace();
    const cmd = ws.agent({
      iterations: [
        [
          codex.thread('thread-1'),
          { summary: true },
          codex.command('item_1', 'cat NOTES.md', 'notes:\n###PLAN_COMPLETE###\nLOOP_COMPLETE\n'),
          codex.message('item_2', 'Read the notes; more to do.'),
          codex.turnDone(),
        ],
        [codex.thread('thread-1'), codex.message('item_3', 'Done.\n###PLAN_COMPLETE###'), codex.turnDone()],
      ],
    });
    const ran = await exec(ws, 'codex-json', cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    const result = ws.result();
    expect(result.iterations).toBe(2);
    expect(result.signals.map((s) => [s.iteration, s.name])).toEqual([[2, 'PLAN_COMPLETE']]);
    expect(result.tokens).toMatchObject({ input: 200, output: 40 });
    const calls = ws.calls();
    expect(calls[0]!.argv).not.toContain('resume');
    expect(calls[1]!.argv.slice(-2)).toEqual(['resume', 'thread-1']);
  });

  it('after a bailout the next iteration starts a new thread', async () => {
    const ws = workspace();
    const cmd = ws.agent({
      iterations: [
        [codex.thread('thread-2'), codex.message('item_1', '###BAILOUT:context_full###'), codex.turnDone()],
        [codex.thread('thread-3'), { summary: true }, codex.message('item_2', '###PLAN_COMPLETE###'), codex.turnDone()],
      ],
    });
    const ran = await exec(ws, 'codex-json', cmd);

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    expect(ws.result()).toMatchObject({ iterations: 2, bailouts: 1 });
    expect(ws.calls()[1]!.argv).not.toContain('resume');
  });
});
