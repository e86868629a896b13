// ralph's own shell commands (verify commands, land checks, hooks, notification targets), run
// through one runBoundedShell: what each caller chooses (environment, stdin, output kept) reaches
// the command, and nothing the command started outlives it (docs/hostile.md "Verify commands").
import { describe, expect, it } from 'vitest';
import { runBoundedShell, type RunShellOptions } from '../../src/executors/bounded-shell.js';
import { PATIENCE_MS } from '../helpers/patience.js';
import { isRunning } from '../helpers/processes.js';

const base: RunShellOptions = { cwd: '/', env: { PATH: process.env.PATH }, markerName: 'RALPH_TEST_SHELL_ID', tailBytes: 1_000, timeoutMs: PATIENCE_MS, drainMs: 100, killGraceMs: 1_000 };

describe('runBoundedShell', () => {
  it("gives the command the caller's environment and cwd, a fresh marker, and the stdin it is given", async () => {
    const end = await runBoundedShell('sh', ['-c', 'pwd; echo "[$HOME] [$RALPH_TEST_SHELL_ID]"; cat; exit 3'], { ...base, cwd: '/tmp', stdin: 'from stdin' });
    expect(end).toMatchObject({ exitCode: 3, exited: true, timedOut: false, aborted: false, stopped: [] });
    expect(end.output).toMatch(/^\/tmp\n\[\] \[[0-9a-f]{16}\]\nfrom stdin$/);
  });

  it('without stdin, the command reads /dev/null and ends; only the last tailBytes of its output are kept', async () => {
    const end = await runBoundedShell('sh', ['-c', 'cat; printf "%0200d" 0; echo tail >&2'], { ...base, tailBytes: 10 });
    expect(end.exitCode).toBe(0);
    expect(end.output).toBe('00000tail\n'.slice(-10));
  });

  it('a setsid daemon that holds the output open is stopped after the drain, found by the marker', async () => {
    const end = await runBoundedShell('sh', ['-c', "setsid sh -c 'sleep 300' & echo started"], base);
    expect(end.exitCode).toBe(0);
    expect(end.output).toBe('started\n');
    expect(end.stopped.map((p) => p.comm)).toContain('sleep');
    for (const p of end.stopped) expect(isRunning(p.pid)).toBe(false);
  });

  it('the caller aborting stops the command and what it started; onOutput sees the output as it comes', async () => {
    const stop = new AbortController();
    const end = await runBoundedShell('sh', ['-c', 'sleep 300 & echo ready; wait'], { ...base, signal: stop.signal, onOutput: (chunk) => chunk.toString().includes('ready') && stop.abort() });
    expect(end).toMatchObject({ exitCode: null, aborted: true, timedOut: false, output: 'ready\n' });
    expect(end.stopped.map((p) => p.comm).sort()).toEqual(['sh', 'sleep']);
    for (const p of end.stopped) expect(isRunning(p.pid)).toBe(false);
  });

  it('a program that cannot be run ends with the reason, not a throw', async () => {
    const end = await runBoundedShell('/nonexistent/sh', ['-c', 'true'], base);
    expect(end).toMatchObject({ exitCode: null, exited: true, stopped: [] });
    expect(end.error).toMatch(/^cannot run sh: spawn \/nonexistent\/sh ENOENT/);
  });
});
