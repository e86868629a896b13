// The held-out shape of the overnight issue, through the built CLI in each stream format: an
// agent meets a usage limit with a reset time, ralph waits for it, and the run completes in the
// iteration after the limit, with no iteration spent on it (docs/overnight.md).
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { assertBuilt, makeTempDir, planText, RALPH_BIN, removeTempDirs, ROOT } from './helpers/exec-harness.js';
import { PATIENCE_MS } from '../helpers/patience.js';

beforeAll(assertBuilt);
afterAll(removeTempDirs);

const AGENT = join(ROOT, 'test/fixtures/agents/limit-once.mjs');

describe.concurrent('a usage limit with a reset time, then completion', () => {
  // claude-json-rounded: the exact reset in a rate_limit_event, then words that round it down to
  // the minute (already past): the exact time is waited for, never tomorrow's.
  it.for(['claude-json', 'claude-json-rounded', 'codex-json', 'text'])('%s: waits for the reset, completes in iteration 1, exit 0', async (mode, { expect }) => {
    const format = mode === 'claude-json-rounded' ? 'claude-json' : mode;
    const dir = makeTempDir();
    writeFileSync(join(dir, 'plan.md'), planText({ id: 'limits' }));
    const ran = await new Promise<{ status: number | null; stderr: string }>((done) => {
      const child = execFile(process.execPath, [RALPH_BIN, 'exec', 'plan.md', '--stream-format', format, '--quiet', '--', process.execPath, AGENT, mode, '2'], {
        cwd: dir,
        timeout: PATIENCE_MS,
        env: { ...process.env, NO_COLOR: '1' },
      }, (_error, _stdout, stderr) => done({ status: child.exitCode, stderr }));
    });
    expect(ran.status, ran.stderr).toBe(0);
    expect(ran.stderr).toMatch(/waiting for the (usage|rate) limit until \d\d:\d\d/);
    const runs = join(dir, '.ralph', 'runs');
    const runDir = join(runs, readdirSync(runs).find((n) => !n.startsWith('.'))!);
    const result = JSON.parse(readFileSync(join(runDir, 'result.json'), 'utf8'));
    expect(result).toMatchObject({ outcome: 'complete', iterations: 1 });
    const events = readFileSync(join(runDir, 'events.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const waits = events.filter((e) => e.type === 'wait_start');
    expect(waits).toHaveLength(1);
    // The wait follows the time the agent gave, not a guess.
    expect(waits[0].basis).toBe(format === 'codex-json' ? 'retry-after' : 'reset');
    expect(events.filter((e) => e.type === 'wait_end').map((e) => e.end)).toEqual(['done']);
    expect(readFileSync(join(dir, '.calls'), 'utf8')).toBe('xx');
  });
});
