// `ralph parse` as a user runs it: the built CLI (npm test builds dist/ first). docs/commands.md#ralph-parse: one
// NDJSON object per signal, claim, malformed or ignored signal, near miss (docs/parser.md) and
// observation, in order.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isRunning } from '../helpers/processes.js';
import { BIN, ROOT, runRalph, type Ran } from '../helpers/run-ralph.js';

const FIXTURES = 'test/fixtures/transcripts';
const FINDING_FIELDS = ['valid', 'type', 'severity', 'title', 'detail', 'file', 'action'];

/** Runs the built CLI; with `timeoutMs`, a run that takes longer is killed and fails the test. */
async function ralph(args: string[], stdin?: string | Buffer, timeoutMs?: number): Promise<Ran> {
  let late = false;
  const ran = await runRalph(args, {
    ...(stdin !== undefined ? { stdin } : {}),
    onStart: (child) => {
      if (timeoutMs === undefined) return;
      const timer = setTimeout(() => {
        late = true;
        child.kill('SIGKILL');
      }, timeoutMs);
      child.on('close', () => clearTimeout(timer));
    },
  });
  if (late) throw new Error(`ralph ${args.join(' ')} took longer than ${timeoutMs} ms`);
  return ran;
}


/** Every stdout line is one JSON object; nothing else is printed there. */
function ndjson(stdout: string): Record<string, unknown>[] {
  if (stdout === '') return [];
  expect(stdout.endsWith('\n')).toBe(true);
  return stdout
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

let tmp: string;
beforeAll(() => {
  if (!existsSync(resolve(ROOT, 'dist/cli/parse.js'))) {
    throw new Error('dist/ is not built: run `npx tsc -p tsconfig.build.json` (npm test does it) first');
  }
  tmp = mkdtempSync(join(tmpdir(), 'ralph-parse-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const ALL_KINDS = [
  { kind: 'signal', line: 2, name: 'BAILOUT', args: ['context is getting long'] },
  { kind: 'ignored', line: 4, name: 'PLAN_COMPLETE', args: [] },
  {
    kind: 'observation',
    line: 6,
    valid: true,
    type: 'bug',
    severity: 'high',
    title: 'Refill overflows',
    detail: 'tokens exceed capacity & never drain',
    file: 'src/bucket.ts',
    action: 'needs-fix',
  },
  { kind: 'malformed', line: 12 },
  { kind: 'near_miss', line: 12, text: '###NOT_A_SIGNAL###', reason: 'unknown_name', correct: null },
  { kind: 'observation', line: 13, valid: false, raw: '<observation type="feature" severity="low"><title>t</title><detail>d</detail></observation>' },
  { kind: 'signal', line: 14, name: 'TEST_FAILED', args: ['widgets', '3'] },
  { kind: 'claim', line: 15, name: 'LOOP_COMPLETE' },
  { kind: 'near_miss', line: 16, text: 'Done: ###PLAN_COMPLETE###', reason: 'not_alone', correct: '###PLAN_COMPLETE###' },
  { kind: 'signal', line: 17, name: 'PLAN_COMPLETE', args: [] },
];

describe('ralph parse FILE', () => {
  it('prints one object per event, in order, in the shape docs/commands.md#ralph-parse gives', async () => {
    const ran = await ralph(['parse', `${FIXTURES}/all-kinds.txt`]);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    const records = ndjson(ran.stdout);
    expect(records).toMatchObject(ALL_KINDS);
    expect(records).toHaveLength(ALL_KINDS.length);
    for (const r of records) {
      if (r.kind === 'signal' || r.kind === 'ignored') {
        expect(Array.isArray(r.args) && (r.args as unknown[]).every((a) => typeof a === 'string')).toBe(true);
      }
      if (r.kind === 'observation') {
        for (const field of FINDING_FIELDS) expect(r).toHaveProperty(field);
      }
    }
    const invalid = records[5]!;
    expect(typeof invalid.error).toBe('string');
    expect(invalid.error).toMatch(/type/);
    expect(isRunning(ran.pid)).toBe(false);
  });

  it('reads CRLF, a last line without a line end, and records an observation left open', async () => {
    const ran = await ralph(['parse', `${FIXTURES}/crlf-unclosed.txt`]);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    const records = ndjson(ran.stdout);
    expect(records).toMatchObject([
      { kind: 'signal', line: 1, name: 'BLOCKED', args: ['waiting for the staging key'] },
      { kind: 'observation', line: 2, valid: true, type: 'blocker', severity: 'critical', title: 'No key', file: null, action: 'none' },
      { kind: 'claim', line: 6, name: 'LOOP_COMPLETE' },
      { kind: 'observation', line: 7, valid: false },
    ]);
    expect(records).toHaveLength(4);
    expect(records[3]!.raw).toContain('<title>never closed</title>');
    expect(typeof records[3]!.error).toBe('string');
  });

  it('a lone CR ends a line, as LF and CRLF do', async () => {
    const file = join(tmp, 'lone-cr.txt');
    writeFileSync(file, 'building 10%\rbuilding 100%\r###PLAN_COMPLETE###\rdone\r\n###BLOCKED:key###\r');
    const expected = [
      { kind: 'signal', line: 3, name: 'PLAN_COMPLETE', args: [] },
      { kind: 'signal', line: 5, name: 'BLOCKED', args: ['key'] },
    ];
    const ran = await ralph(['parse', file]);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ndjson(ran.stdout)).toEqual(expected);
    const fromStdin = await ralph(['parse', '-'], readFileSync(file));
    expect(ndjson(fromStdin.stdout)).toEqual(expected);
  });

  it('prints nothing for an empty transcript or one of plain text', async () => {
    const empty = join(tmp, 'empty.txt');
    writeFileSync(empty, '');
    const plain = join(tmp, 'plain.txt');
    writeFileSync(plain, 'hello\nthe PLAN_COMPLETE line ends the plan\n### Progress\n');
    for (const file of [empty, plain]) {
      expect(await ralph(['parse', file])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    }
  });

  it('reports near misses: the line, what is wrong, and the line to write instead', async () => {
    const file = join(tmp, 'near-misses.txt');
    writeFileSync(file, 'All tasks done.\nDone! ###PLAN_COMPLETE###\n**###PLAN_COMPLETE###**\n###plan_complete###\n```diff\n###PLAN_COMPLETE###\n');
    const ran = await ralph(['parse', file]);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    const records = ndjson(ran.stdout);
    expect(records.filter((r) => r.kind === 'near_miss')).toEqual([
      { kind: 'near_miss', line: 2, text: 'Done! ###PLAN_COMPLETE###', reason: 'not_alone', hint: expect.stringContaining('alone on its own line'), correct: '###PLAN_COMPLETE###' },
      { kind: 'near_miss', line: 3, text: '**###PLAN_COMPLETE###**', reason: 'markdown', hint: expect.stringContaining('Markdown'), correct: '###PLAN_COMPLETE###' },
      { kind: 'near_miss', line: 4, text: '###plan_complete###', reason: 'wrong_case', hint: expect.stringContaining('upper case'), correct: '###PLAN_COMPLETE###' },
      { kind: 'near_miss', line: 6, text: '###PLAN_COMPLETE###', reason: 'unclosed_fence', hint: expect.stringContaining('line 5'), correct: '###PLAN_COMPLETE###' },
    ]);
    expect(records.filter((r) => r.kind === 'signal' || r.kind === 'claim')).toEqual([]);
  });

  it('a hostile line near 1 MiB is judged quickly: a run of #, a line of many tokens', async () => {
    // A regular expression retried from inside a run of # once took minutes on such a line.
    const file = join(tmp, 'hostile.txt');
    writeFileSync(file, `${'#'.repeat(1024 * 1024 - 1)}\n${'##a'.repeat(340_000)}###\n###PLAN_COMPLETE###\n`);
    const ran = await ralph(['parse', file], undefined, 20_000);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ndjson(ran.stdout).map((r) => [r.kind, r.line])).toEqual([
      ['malformed', 1],
      ['near_miss', 1],
      ['signal', 3],
    ]);
  });

  it('cuts a line over 1 MiB and still numbers the lines after it', async () => {
    const file = join(tmp, 'long.txt');
    writeFileSync(file, `start\n###BAILOUT:${'z'.repeat(2 * 1024 * 1024)}###\n###BLOCKED:after###\n`);
    const ran = await ralph(['parse', file]);
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ndjson(ran.stdout)).toEqual([{ kind: 'signal', line: 3, name: 'BLOCKED', args: ['after'] }]);
  });
});

describe('ralph parse - (standard input)', () => {
  it('prints the same as reading the file', async () => {
    const bytes = readFileSync(resolve(ROOT, FIXTURES, 'all-kinds.txt'));
    const fromFile = await ralph(['parse', `${FIXTURES}/all-kinds.txt`]);
    const fromStdin = await ralph(['parse', '-'], bytes);
    expect(fromStdin).toMatchObject({ code: 0, stderr: '', stdout: fromFile.stdout });
    expect(isRunning(fromStdin.pid)).toBe(false);
  });

  it('reads standard input when no file is given', async () => {
    const ran = await ralph(['parse'], '###PLAN_COMPLETE###\r\n');
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(ndjson(ran.stdout)).toEqual([{ kind: 'signal', line: 1, name: 'PLAN_COMPLETE', args: [] }]);
  });
});

describe('ralph parse | head', () => {
  it('stops quietly when the reader goes away (EPIPE is not an internal error)', async () => {
    const file = join(tmp, 'many.txt');
    writeFileSync(file, '###PLAN_COMPLETE###\n'.repeat(200_000));
    const ran = await new Promise<{ code: number | null; stderr: string; first: string; pid: number }>((done, fail) => {
      const child = spawn(process.execPath, [BIN, 'parse', file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let first = '';
      child.stdout!.setEncoding('utf8').once('data', (s: string) => {
        first = s.slice(0, s.indexOf('\n'));
        child.stdout!.destroy(); // as `head -1` does
      });
      child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
      child.on('error', fail);
      child.on('close', (code) => done({ code, stderr, first, pid: child.pid! }));
    });
    expect(JSON.parse(ran.first)).toEqual({ kind: 'signal', line: 1, name: 'PLAN_COMPLETE', args: [] });
    expect(ran.stderr).not.toMatch(/internal error|EPIPE/);
    expect(isRunning(ran.pid)).toBe(false);
  });
});

describe('ralph parse: bad input', () => {
  /** One error line `ralph: …` (and at most a hint after it), no stack trace, nothing on stdout. */
  function expectUsageError(ran: Ran, mentions: RegExp) {
    expect(ran.code).toBe(64);
    expect(ran.stdout).toBe('');
    const lines = ran.stderr.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(lines[0]).toMatch(/^ralph: /);
    expect(lines[0]).toMatch(mentions);
    expect(ran.stderr).not.toMatch(/\n\s+at /);
    expect(ran.stderr).not.toMatch(/internal error/);
  }

  it('a missing file: exit 64, what is wrong and where, no stack trace', async () => {
    const missing = join(tmp, 'no-such-transcript.txt');
    const ran = await ralph(['parse', missing]);
    expectUsageError(ran, /no-such-transcript\.txt/);
    expect(ran.stderr).toMatch(/no such file/i);
  });

  it('a directory: exit 64, no stack trace', async () => {
    const ran = await ralph(['parse', tmp]);
    expectUsageError(ran, /directory/);
  });
});
