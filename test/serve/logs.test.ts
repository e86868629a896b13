// `ralph logs`: a run's transcripts as the page shows them, in the terminal; --follow goes on
// until the run ends.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { printLogs } from '../../src/serve/print-logs.js';
import { runRalph } from '../helpers/run-ralph.js';
import { ScriptedRun, waitFor } from './helpers.js';

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralph-logs-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('ralph logs', () => {
  it('prints every iteration of a text run, escape sequences removed (built CLI)', async () => {
    const run = new ScriptedRun(dir, '20261126-020000-logs');
    run.start();
    run.nextIteration();
    run.say('first \x1b[31mred\x1b[0m\n');
    run.nextIteration();
    run.say('second\n###PLAN_COMPLETE###\n');
    run.finish('complete', 'ok');
    const r = await runRalph(['logs', '--cwd', dir]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('── iteration 1 ──\nfirst red\n── iteration 2 ──\nsecond\n###PLAN_COMPLETE###\n');
    expect((await runRalph(['logs', run.id, '--cwd', dir, '--iteration', '2'])).stdout).toBe('── iteration 2 ──\nsecond\n###PLAN_COMPLETE###\n');
    const missing = await runRalph(['logs', 'no-such-run', '--cwd', dir]);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain('no run "no-such-run"');
  });

  it('shows a JSON stream as words, tool calls and their output', async () => {
    const run = new ScriptedRun(dir, '20261126-020000-json');
    run.start();
    run.event({ type: 'agent', name: 'claude', command: ['claude'], streamFormat: 'claude-json', formatChosen: 'preset' });
    run.nextIteration();
    run.say(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'streams', 'claude-sample.ndjson')));
    run.finish('complete', 'ok');
    const r = await runRalph(['logs', run.id, '--cwd', dir]);
    expect(r.stdout).toContain("── iteration 1 ──\nI'll start with Task 1: reading the current greeting module.\n▸ Read(/home/dev/widgets/src/greeting.ts)\n");
    expect(r.stdout).toContain('▸ Bash(npm test -- greeting)\n  │ Bash failed: Error: 1 test failed\n');
  });

  it('follows a run into its next iteration until it ends', async () => {
    const run = new ScriptedRun(dir, '20261126-020000-tail');
    run.start();
    run.nextIteration();
    run.say('one\n');
    let out = '';
    const done = printLogs(run.paths, { follow: true }, (s) => (out += s));
    await waitFor(() => expect(out).toBe('── iteration 1 ──\none\n'));
    run.say('two\n');
    await waitFor(() => expect(out).toContain('two\n'));
    run.nextIteration();
    run.say('three\n');
    await waitFor(() => expect(out).toContain('── iteration 2 ──\nthree\n'));
    run.say('last words');
    run.finish('complete', 'ok');
    await done;
    expect(out).toBe('── iteration 1 ──\none\ntwo\n── iteration 2 ──\nthree\nlast words\n');
  });
});
