// What a long unattended run prints (docs/commands.md#ralph-exec, common standards): agent output is untrusted,
// so no control sequence reaches a log file or a terminal; --json is NDJSON and nothing else;
// --quiet hides the agent; NO_COLOR turns colour off. The TTY tests use a real pty (script(1)).
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../../src/contract.js';
import { BIN, cleanEnv, CONTROL_CHARS, ralph, Workspace, trackWorkspaces } from './longrun-helpers/index.js';
import { PATIENCE_MS } from '../helpers/patience.js';

const workspace = trackWorkspaces();

const MARKER = 'agent-says-hello';
/** An agent that tries every trick: SGR colours, OSC title and clipboard, screen clears, C1 CSI, BEL. */
const hostile = (ws: Workspace) =>
  ws.agent({
    iterations: [
      [
        { say: `${MARKER} \x1b[38;5;202mcolour\x1b[0m \x1b]0;pwned title\x07 \x1b]52;c;cHduZWQ=\x07 clip \x1b[2J\x1b[H home \u009b31m c1 \x07bell` },
        { stderr: `stderr \x1b[31mred\x1b[0m \x1b]8;;https://example.invalid\x1b\\link\x1b]8;;\x1b\\` },
        { raw: 'progress 10%\rprogress 20%\n' },
        { summary: true },
        { say: '###PLAN_COMPLETE###' },
      ],
    ],
  });

describe('without a TTY', () => {
  it('stdout and stderr hold no control sequence at all, though the agent prints many', async () => {
    const ws = workspace();
    const ran = await ralph(['exec', ws.plan, '--', ...hostile(ws)], { cwd: ws.cwd });

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    // What people read goes to stderr; stdout is for --json only (docs/first-hour.md).
    expect(ran.stdout).toBe('');
    expect(ran.stderr).toContain(MARKER);
    expect(ran.stderr).toContain('colour');
    expect(ran.stderr).toMatch(/run complete/);
    expect(JSON.stringify(ran.stderr.match(CONTROL_CHARS))).toBe('null');
    expect(ran.stderr).not.toContain('pwned');
  });

  it('no lone carriage return either: one would overwrite the line before it when the log is shown', async () => {
    const ws = workspace();
    const ran = await ralph(['exec', ws.plan, '--', ...hostile(ws)], { cwd: ws.cwd });

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    expect(ran.stderr).toContain('progress 20%');
    expect(ran.stderr).not.toMatch(/\r(?!\n)/);
  });

  it('--json: stdout is NDJSON, every line an object with a type, and nothing else', async () => {
    const ws = workspace();
    const ran = await ralph(['exec', ws.plan, '--json', '--', ...hostile(ws)], { cwd: ws.cwd });

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    expect(ran.stdout.endsWith('\n')).toBe(true);
    const lines = ran.stdout.slice(0, -1).split('\n');
    const events = lines.map((line) => JSON.parse(line) as { type?: unknown });
    for (const e of events) expect(typeof e.type).toBe('string');
    const types = new Set(events.map((e) => e.type));
    for (const t of ['run-start', 'iteration-start', 'output', 'signal', 'decision', 'gate', 'iteration-end', 'run-end']) expect(types).toContain(t);
    // The agent's text travels inside output events only.
    expect(events.filter((e) => e.type === 'output').map((e) => (e as { text: string }).text).join('')).toContain(MARKER);
    expect(events.at(-1)).toMatchObject({ type: 'run-end', outcome: 'complete', exitCode: 0 });
  });

  it('--json escapes every control character, C1 (U+0080–U+009F) included, since JSON.stringify leaves those raw', async () => {
    const ws = workspace();
    const ran = await ralph(['exec', ws.plan, '--json', '--', ...hostile(ws)], { cwd: ws.cwd });

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    expect(JSON.stringify(ran.stdout.match(CONTROL_CHARS))).toBe('null');
  });

  it('--quiet hides the agent output but keeps ralph lines', async () => {
    const ws = workspace();
    const ran = await ralph(['exec', ws.plan, '--quiet', '--', ...hostile(ws)], { cwd: ws.cwd });

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    expect(ran.stdout + ran.stderr).not.toContain(MARKER);
    expect(ran.stdout + ran.stderr).not.toContain('progress 20%');
    expect(ran.stderr).toMatch(/ralph: signal PLAN_COMPLETE/);
    expect(ran.stderr).toMatch(/ralph: run complete \(exit 0\)/);
  });

  it('--json --quiet: no output events, still pure NDJSON', async () => {
    const ws = workspace();
    const ran = await ralph(['exec', ws.plan, '--json', '--quiet', '--', ...hostile(ws)], { cwd: ws.cwd });

    expect(ran.code, ran.stderr).toBe(EXIT_CODES.complete);
    const events = ran.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string });
    expect(events.some((e) => e.type === 'output')).toBe(false);
    expect(ran.stdout).not.toContain(MARKER);
  });
});

const hasScript = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
const sh = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Runs ralph on a real pty through script(1); returns everything the terminal received. */
function onTty(ws: Workspace, args: string[], env: Record<string, string | undefined>): string {
  const command = [process.execPath, BIN, ...args].map(sh).join(' ');
  return execFileSync('script', ['-qfec', command, '/dev/null'], {
    cwd: ws.cwd,
    env: cleanEnv({ TERM: 'xterm-256color', COLUMNS: '200', ...env }),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: PATIENCE_MS,
  });
}

// script(1) is part of util-linux on Debian; where it is missing these cannot run.
describe.runIf(hasScript)('on a TTY (a real pty)', () => {
  it("shows the progress line and ralph's lines, to the last one, and none of the agent's escape sequences", () => {
    const ws = workspace();
    const out = onTty(ws, ['exec', ws.plan, '--', ...hostile(ws)], {});

    expect(out).toMatch(/iteration 1 \(max 20\)/);
    expect(out).toContain(MARKER);
    expect(out).not.toContain('pwned');
    expect(out).not.toContain('\x1b]52;');
    expect(out).not.toContain('\x1b[38;5;202m');
    expect(out).not.toContain('\x1b[2J');
    // The outcome is the line a person at the terminal waits for.
    expect(out).toMatch(/run complete \(exit 0\)/);
  });

  it('NO_COLOR=1: no colour codes, though the progress line is still drawn', () => {
    const ws = workspace();
    const coloured = onTty(ws, ['exec', ws.plan, '--quiet', '--', ...hostile(ws)], {});
    const ws2 = workspace();
    const plain = onTty(ws2, ['exec', ws2.plan, '--quiet', '--', ...hostile(ws2)], { NO_COLOR: '1' });

    // eslint-disable-next-line no-control-regex
    const sgr = /\x1b\[[0-9;]*m/;
    expect(coloured).toMatch(sgr); // the control: ralph does colour a TTY by default
    expect(plain).toMatch(/iteration 1 \(max 20\)/);
    expect(plain).not.toMatch(sgr);
  });
});
