// Each real agent CLI's limit, replayed through `ralph exec --agent NAME` (docs/overnight.md,
// docs/agents.md "Limit words"): the streams the real Claude Code, Codex, Gemini CLI, Qwen Code and
// opencode printed when their APIs refused (test/fixtures/agents-real/limits-2026-11/), played back
// by a stand-in program under the agent's own name on PATH. The loop runs in-process on a clock the
// test drives, so a wait until 20:03:45 takes no time; the agent is a real process.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { PassThrough } from 'node:stream';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runPlan } from '../../src/loop/index.js';
import type { RunEvent } from '../../src/loop/events.js';
import { FakeClock } from '../loop/fake-clock.js';
import { statusCommand } from '../../src/cli/status.js';
import { ROOT } from '../helpers/run-ralph.js';

const REAL = join(ROOT, 'test/fixtures/agents-real');
const LIMITS = join(REAL, 'limits-2026-11');
const REPLAYER = join(ROOT, 'test/fixtures/agents/replay-calls.mjs');
const SUMMARY = JSON.stringify({ plan: 'night', status: 'complete', tasks: [{ name: 'Task 1', status: 'done' }] });
const PLAN = `---
id: night
max_iterations: 3
---
# One task

<tasks>
  <task><name>Task 1</name><action>Write greeting.txt.</action></task>
</tasks>

## Progress
`;

const read = (path: string) => readFileSync(path, 'utf8');
/** One recorded transcript holding several attempts, cut where each attempt starts. */
const attempts = (text: string, starts: RegExp): string[] => {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (starts.test(line) || out.length === 0) out.push('');
    out[out.length - 1] += `${line}\n`;
  }
  return out;
};
const claudeLimit = attempts(read(join(LIMITS, 'claude-code-2.1.197-limit-reset-40s-past-minute-iteration1.log')), /"subtype":"init"/);
const claudeComplete = read(join(REAL, 'claude-code-2.1.197/complete-iteration1.jsonl'));
/** Claude Code's refusal as it printed it, with other words in its synthetic message and result. */
const claudeSays = (words: string, status: number | null = 429) =>
  claudeLimit[0]!
    .split('\n')
    .filter((l) => !l.includes('"rate_limit_event"'))
    .join('\n')
    .replaceAll("You've hit your session limit · resets 8:03pm (UTC)", words.replaceAll('"', '\\"'))
    .replace('"api_error_status":429', `"api_error_status":${status}`);

let home = '';
let pathBefore: string | undefined;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'ralph-limit-replays-'));
  const bin = join(home, 'bin');
  mkdirSync(bin);
  for (const name of ['claude', 'codex', 'gemini', 'opencode', 'qwen']) {
    writeFileSync(join(bin, name), `#!/bin/sh\nexec "${process.execPath}" "${REPLAYER}" "$@"\n`);
    chmodSync(join(bin, name), 0o755);
  }
  pathBefore = process.env.PATH;
  process.env.PATH = `${bin}${delimiter}${process.env.PATH ?? ''}`;
});
afterAll(() => {
  process.env.PATH = pathBefore;
  rmSync(home, { recursive: true, force: true });
});
afterEach(() => {
  delete process.env.REPLAY_DIR;
  delete process.env.REPLAY_SUMMARY;
});

/** Runs the plan with `--agent NAME`, its calls replaying `calls` ([stream, exit code]); each wait is skipped over on the clock. */
async function replay(agent: string, calls: [string, number][], start: number) {
  const dir = mkdtempSync(join(home, `${agent}-`));
  const work = join(dir, 'work');
  const replays = join(dir, 'replays');
  mkdirSync(work);
  mkdirSync(replays);
  calls.forEach(([stream, exit], i) => {
    writeFileSync(join(replays, `call-${i + 1}.log`), stream);
    writeFileSync(join(replays, `call-${i + 1}.exit`), String(exit));
  });
  writeFileSync(join(work, 'plan.md'), PLAN);
  process.env.REPLAY_DIR = replays;
  process.env.REPLAY_SUMMARY = SUMMARY;
  const clock = new FakeClock(start);
  const events: RunEvent[] = [];
  const statusLines: string[] = [];
  let runDir = '';
  const result = await runPlan(
    { planPath: join(work, 'plan.md'), cwd: work, agent },
    {
      clock,
      onEvent: (e) => {
        events.push(e);
        if (e.type === 'run-start') runDir = e.runDir;
        if (e.type !== 'wait_start') return;
        // What `ralph status` says while the run waits.
        const out = new PassThrough();
        statusCommand('latest', { cwd: work, runDir }, { stdout: out, stderr: out, exitCode: 0, debug: false, passThrough: [], env: {} });
        statusLines.push(String(out.read() ?? ''));
        setImmediate(() => clock.advance(Date.parse(e.until) - clock.now()));
      },
    },
  );
  const waits = events.filter((e): e is Extract<RunEvent, { type: 'wait_start' }> => e.type === 'wait_start');
  const args = (n: number): string[] => JSON.parse(read(join(replays, `args-${n}.json`)));
  return { result, events, waits, calls: Number(read(join(replays, 'calls'))), args, statusLines };
}

describe('Claude Code: an exact reset time is never replaced by a rounded one', () => {
  // 20:03:40 UTC, 40 s past a minute: the rate_limit_event's resetsAt; the words say "8:03pm".
  const RESET = 1795723420_000;

  it('waits until the exact reset (not 8:03:00), completes, and spends no iteration', async () => {
    const run = await replay('claude', [[claudeLimit[0]!, 1], [claudeComplete, 0]], RESET - 14 * 60_000);
    expect(run.result.outcome, run.result.reason).toBe('complete');
    expect(run.result.iterations).toBe(1);
    expect(run.waits.map((w) => [w.until, w.basis])).toEqual([[new Date(RESET + 5_000).toISOString(), 'reset']]);
    expect(run.calls).toBe(2);
    // Waiting before the first iteration, `ralph status` names the iteration that runs next.
    expect(run.statusLines[0]).toMatch(/^state {6}waiting until \S+, iteration 1 of 3 next$/m);
  });

  it('a second limit right after the wake-up waits again instead of ending the run', async () => {
    // Woken at 20:03:45 the agent is refused once more with the same (now past) reset and the
    // same "resets 8:03pm": not tomorrow's 8:03 pm, but a backoff.
    const run = await replay('claude', [[claudeLimit[0]!, 1], [claudeLimit[1]!, 1], [claudeComplete, 0]], RESET - 14 * 60_000);
    expect(run.result.outcome, run.result.reason).toBe('complete');
    expect(run.result.iterations).toBe(1);
    expect(run.waits.map((w) => w.basis)).toEqual(['reset', 'backoff']);
    expect(Date.parse(run.waits[1]!.until) - (RESET + 5_000)).toBe(120_000);
  });
});

describe("every agent's limit, replayed: a wait, never failed after three attempts", () => {
  const EVENING = Date.UTC(2026, 10, 26, 19, 50);

  it.each([
    "You're out of extra usage · resets 9pm (UTC)",
    '5-hour limit reached ∙ resets 9pm (UTC)',
    'Claude usage limit reached. Your limit will reset at 9pm (UTC).',
    'Claude AI usage limit reached|1795726800',
  ])('claude: "%s"', async (words) => {
    const run = await replay('claude', [[claudeSays(words), 1], [claudeComplete, 0]], EVENING);
    expect(run.result.outcome, run.result.reason).toBe('complete');
    expect(run.result.iterations).toBe(1);
    expect(run.waits).toEqual([expect.objectContaining({ kind: 'usage', until: '2026-11-26T21:00:05.000Z', basis: 'reset' })]);
  });

  it('codex: "You’ve hit your usage limit … try again at 7:33 PM" waits until then, twice, then completes', async () => {
    const [first, second] = attempts(read(join(LIMITS, 'codex-0.169.0-usage-limit-try-again-at-iteration1.log')), /^WARNING: proceeding/);
    const done = read(join(LIMITS, 'codex-0.169.0-usage-limit-try-again-at-iteration3.log'));
    // Codex writes its local time; the test's clock starts at 7:32:10 PM local.
    const start = new Date(2026, 10, 26, 19, 32, 10).getTime();
    const run = await replay('codex', [[first!, 1], [second!, 1], [done, 0]], start);
    expect(run.result.outcome, run.result.reason).toBe('complete');
    expect(run.result.iterations).toBe(1);
    expect(run.waits.map((w) => [Date.parse(w.until), w.basis, w.kind])).toEqual([
      [new Date(2026, 10, 26, 19, 33, 5).getTime(), 'reset', 'usage'],
      [new Date(2026, 10, 26, 19, 34, 5).getTime(), 'reset', 'usage'],
    ]);
  });

  it('gemini: "[API Error: You have exhausted your daily quota on this model.]" is a usage limit', async () => {
    const quota = read(join(LIMITS, 'gemini-cli-0.61.0-daily-quota-then-dead-resume-iteration1.log'));
    const done = read(join(REAL, 'gemini-cli-0.61.0/recorded/complete-iteration1.ndjson'));
    const run = await replay('gemini', [[quota, 1], [done, 0]], EVENING);
    expect(run.result.outcome, run.result.reason).toBe('complete');
    expect(run.result.iterations).toBe(1);
    expect(run.waits).toEqual([expect.objectContaining({ kind: 'usage', basis: 'backoff' })]);
    // The refused attempt was a fresh context, and so is the one after the wait: no resume of a session Gemini never saved.
    expect(run.args(2)).not.toContain('--resume');
  });

  it('opencode: "You exceeded your current quota" is a usage limit, not a rate limit', async () => {
    const quota = `${JSON.stringify({ type: 'error', timestamp: 1795722940795, sessionID: 'ses_quota', error: { name: 'APIError', data: { message: 'You exceeded your current quota, please check your plan and billing details.', statusCode: 429, isRetryable: true } } })}\n`;
    const done = read(join(LIMITS, 'opencode-1.18.33-quota-iteration1.log'));
    const run = await replay('opencode', [[quota, 1], [done, 0]], EVENING);
    expect(run.result.outcome, run.result.reason).toBe('complete');
    expect(run.waits).toEqual([expect.objectContaining({ kind: 'usage', basis: 'backoff', until: new Date(EVENING + 60_000).toISOString() })]);
  });

  it('the API key’s spend cap ends the run failed at once, saying what to do', async () => {
    const words = 'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC."}}';
    const run = await replay('claude', [[claudeSays(words, 400), 1]], EVENING);
    expect(run.result.outcome).toBe('failed');
    expect(run.result.iterations).toBe(1);
    expect(run.calls).toBe(1);
    expect(run.result.reason).toMatch(/specified API usage limits.*raise the limit/);
    expect(run.waits).toEqual([]);
  });

  it('qwen: a refused key (401, in words only) is fatal at once, as every other agent’s', async () => {
    const init = claudeLimit[0]!.split('\n')[0]!;
    const result = { type: 'result', subtype: 'error_during_execution', is_error: true, session_id: 's-qwen', error: { message: '[API Error: 401 Incorrect API key provided: stand-in. You can find your API key at https://bailian.console.aliyun.com/.]' } };
    const run = await replay('qwen', [[`${init}\n${JSON.stringify(result)}\n`, 1]], EVENING);
    expect(run.result.outcome).toBe('failed');
    expect(run.calls).toBe(1);
    expect(run.result.reason).toMatch(/401 Incorrect API key/);
  });
});

describe('a session that was never saved is not resumed', () => {
  it('gemini: "No previous sessions found" (exit 42) falls back to a fresh context at once, costing no iteration', async () => {
    const undecided = read(join(REAL, 'gemini-cli-0.61.0/recorded/resume-iteration1.ndjson'));
    const dead = read(join(LIMITS, 'gemini-cli-0.61.0-daily-quota-then-dead-resume-iteration2.log'));
    const done = read(join(REAL, 'gemini-cli-0.61.0/recorded/complete-iteration1.ndjson'));
    const run = await replay('gemini', [[undecided, 0], [dead, 42], [done, 0]], Date.UTC(2026, 10, 26, 19, 50));
    expect(run.result.outcome, run.result.reason).toBe('complete');
    expect(run.result.iterations).toBe(2);
    expect(run.args(2)).toContain('--resume');
    expect(run.args(3)).not.toContain('--resume');
    const starts = run.events.filter((e): e is Extract<RunEvent, { type: 'iteration-start' }> => e.type === 'iteration-start');
    expect(starts.map((e) => [e.iteration, e.fresh])).toEqual([[1, true], [2, false], [2, true]]);
    expect(run.result.warnings).toContainEqual(expect.stringMatching(/^iteration 2: the agent could not resume its session \(Error resuming session: No previous sessions found/));
  });
});
