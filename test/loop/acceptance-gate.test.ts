import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acceptanceGate, checkSummaryFile, type GateInput } from '../../src/loop/acceptance-gate.js';

let dir: string;
let input: GateInput;
const START = Date.parse('2026-01-10T12:00:00.000Z');

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-gate-'));
  input = { planId: 'p1', summaryPath: join(dir, 'plans', 'p1.summary.json'), requireSummary: true, verify: [], cwd: dir, runStartedAtMs: START };
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const valid = { plan: 'p1', status: 'complete', tasks: [{ name: 'T1', status: 'done' }] };

function writeSummary(value: unknown, mtimeMs = START + 1_000): void {
  mkdirSync(join(dir, 'plans'), { recursive: true });
  writeFileSync(input.summaryPath, typeof value === 'string' ? value : JSON.stringify(value));
  utimesSync(input.summaryPath, new Date(mtimeMs), new Date(mtimeMs));
}

describe('checkSummaryFile', () => {
  it('a valid, fresh summary naming the plan passes', () => {
    writeSummary({ ...valid, verification: [{ check: 'npm test', passed: true }], files_changed: ['a.ts'], extra: 1 });
    expect(checkSummaryFile(input)).toEqual({ complete: true, reason: 'summary plans/p1.summary.json is valid' });
  });

  it('missing: says where it should be, relative to the working directory', () => {
    const r = checkSummaryFile(input);
    expect(r.complete).toBe(false);
    expect(r.reason).toMatch(/^the summary file plans\/p1\.summary\.json does not exist/);
  });

  it('a folder where the summary should be', () => {
    mkdirSync(input.summaryPath, { recursive: true });
    expect(checkSummaryFile(input)).toMatchObject({ complete: false, reason: expect.stringMatching(/is not a regular file/) });
  });

  it('stale: written before the run started (beyond 5 ms of slack)', () => {
    writeSummary(valid, START - 10);
    const r = checkSummaryFile(input);
    expect(r.complete).toBe(false);
    expect(r.reason).toMatch(/is stale/);
    expect(r.reason).toContain(new Date(START).toISOString());
  });

  it('fresh within the 5 ms slack and at or after the start', () => {
    for (const mtime of [START - 4, START, START + 1]) {
      writeSummary(valid, mtime);
      expect(checkSummaryFile(input).complete, `mtime ${mtime - START} ms`).toBe(true);
    }
  });

  it('not valid JSON', () => {
    writeSummary('{"plan": "p1", ');
    expect(checkSummaryFile(input)).toMatchObject({ complete: false, reason: expect.stringMatching(/is not valid JSON/) });
  });

  it.each([
    [{ ...valid, status: 'done' }, 'status: expected "complete", got "done"'],
    [{ ...valid, tasks: [] }, 'tasks: at least one task is required'],
    [{ ...valid, tasks: [{ name: 'T1', status: 'finished' }] }, 'tasks[0].status'],
    [{ plan: 'p1', status: 'complete' }, 'tasks: is missing'],
    [{ ...valid, verification: [{ check: 'x', passed: 'yes' }] }, 'verification[0].passed'],
    [[1, 2], 'expected a JSON object'],
  ])('schema: %j → names the field (%s)', (value, expected) => {
    writeSummary(value);
    const r = checkSummaryFile(input);
    expect(r.complete).toBe(false);
    expect(r.reason).toContain(expected);
  });

  it('another plan id', () => {
    writeSummary({ ...valid, plan: 'p2' });
    expect(checkSummaryFile(input)).toMatchObject({ complete: false, reason: expect.stringContaining('plan: is "p2", expected "p1"') });
  });
});

describe('acceptanceGate', () => {
  it('require_summary: false skips the summary entirely', async () => {
    expect(await acceptanceGate({ ...input, requireSummary: false })).toMatchObject({ complete: true });
  });

  it('a rejected summary stops the gate before any verify command runs', async () => {
    const r = await acceptanceGate({ ...input, verify: ['touch ran.txt'] });
    expect(r.complete).toBe(false);
    expect(existsSync(join(dir, 'ran.txt'))).toBe(false);
  });

  it('verify commands run with sh -c in the working directory, in order', async () => {
    writeSummary(valid);
    const r = await acceptanceGate({ ...input, verify: ['pwd > where.txt', 'test "$(cat where.txt)" = "$PWD"'] });
    expect(r).toMatchObject({
      complete: true,
      reason: 'summary plans/p1.summary.json is valid; 2 verify command(s) passed',
      // Each command's record: what a pull request's body shows (docs/deliver.md).
      verify: [
        { command: 'pwd > where.txt', exitCode: 0, timedOut: false, durationMs: expect.any(Number) },
        { command: 'test "$(cat where.txt)" = "$PWD"', exitCode: 0, timedOut: false, durationMs: expect.any(Number) },
      ],
    });
    expect(r.checks!.map((c) => [c.check, c.ok])).toEqual([
      ['summary', true],
      ['verify: pwd > where.txt', true],
      ['verify: test "$(cat where.txt)" = "$PWD"', true],
    ]);
  });

  it('a failing verify command is recorded with the ones before it, and no later one runs', async () => {
    writeSummary(valid);
    const r = await acceptanceGate({ ...input, verify: ['true', 'exit 3', 'touch later.txt'] });
    expect(r.verify?.map((v) => [v.command, v.exitCode])).toEqual([
      ['true', 0],
      ['exit 3', 3],
    ]);
    expect(existsSync(join(dir, 'later.txt'))).toBe(false);
  });

  it('the first failing verify command: its command, its exit code and the tail of its output', async () => {
    const r = await acceptanceGate({
      ...input,
      requireSummary: false,
      verify: ['true', 'echo out-line; echo err-line >&2; exit 7', 'touch third.txt'],
    });
    expect(r.complete).toBe(false);
    expect(r.reason).toBe('verify command `echo out-line; echo err-line >&2; exit 7` exited 7; the tail of its output:\nout-line\nerr-line');
    expect(existsSync(join(dir, 'third.txt'))).toBe(false);
  });

  it('only the tail of a long output is kept', async () => {
    const r = await acceptanceGate({
      ...input,
      requireSummary: false,
      verify: ['i=0; while [ $i -lt 3000 ]; do echo "line $i of noise"; i=$((i+1)); done; echo LAST-LINE; exit 1'],
    });
    expect(r.complete).toBe(false);
    expect(r.reason).toMatch(/LAST-LINE$/);
    expect(r.reason).not.toContain('line 0 of noise');
    expect(r.reason.length).toBeLessThan(4_500);
  });

  it('a verify command with no output', async () => {
    const r = await acceptanceGate({ ...input, requireSummary: false, verify: ['exit 2'] });
    expect(r.reason).toBe('verify command `exit 2` exited 2; the tail of its output:\n(no output)');
  });

  it('a verify command past its time limit is stopped and reported as timed out', async () => {
    // A sleep far past the test's timeout: only the time limit can end it.
    const command = 'echo starting; sleep 3600.4817';
    const r = await acceptanceGate({ ...input, requireSummary: false, verify: [command], commands: { timeoutMs: 300 } });
    expect(r.complete).toBe(false);
    expect(r.reason).toMatch(/^verify command `echo starting; sleep 3600.4817` timed out/);
    expect(r.reason).toContain('starting');
    // The whole group is gone: neither the shell nor its sleep is left running.
    const ps = execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' });
    expect(ps).not.toContain('3600.4817');
  });
});
