// The command as a user runs it: the built binary (npm test builds dist/ first).
import { spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASIC, MALICIOUS, REPO } from './helpers.js';
import { PATIENCE_MS } from '../../helpers/patience.js';
import { BIN } from '../../helpers/run-ralph.js';


function ralph(args: string[], cwd = REPO) {
  // spawnSync returns only once the process has exited: nothing is left running.
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', timeout: PATIENCE_MS });
  expect(r.error).toBeUndefined();
  expect(r.signal).toBeNull();
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let tmp = '';
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'ralph-report-cli-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

describe('ralph report (built CLI)', () => {
  it('prints the markdown report by default and warns about unreadable lines on stderr', () => {
    const r = ralph(['report', '--runs', BASIC]);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('## ralph observations report\n')).toBe(true);
    expect(r.stdout).toContain('**7 findings** (9 occurrences) across **5 runs**');
    expect(r.stderr).toContain('skipped 1 unreadable line(s)');
    expect(r.stderr).toContain('runs/run-d/result.json');
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('applies filters from flags', () => {
    const r = ralph(['report', '--runs', BASIC, '--format', 'json', '--min-severity', 'high', '--type', 'bug', '--since', '2026-01-11']);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.filters).toEqual({ minSeverity: 'high', types: ['bug'], since: '2026-01-11T00:00:00.000Z' });
    expect(report.findings.map((g: { file: string; count: number }) => [g.file, g.count])).toEqual([
      ['src/parser.ts', 2],
      ['src/lexer.ts', 1],
    ]);
  });

  it('writes --out atomically and leaves no temp file', async () => {
    const out = join(tmp, 'nested', 'report.html');
    const r = ralph(['report', '--runs', MALICIOUS, '--format', 'html', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const html = await readFile(out, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(await readdir(join(tmp, 'nested'))).toEqual(['report.html']);
  });

  it('stdout redirected to a file gets the same bytes as a pipe, in every format', async () => {
    for (const format of ['md', 'html', 'json']) {
      const piped = ralph(['report', '--runs', MALICIOUS, '--format', format]);
      const path = join(tmp, `redirected.${format}`);
      const fd = openSync(path, 'w');
      try {
        const r = spawnSync(process.execPath, [BIN, 'report', '--runs', MALICIOUS, '--format', format], { cwd: REPO, stdio: ['ignore', fd, 'pipe'], timeout: PATIENCE_MS });
        expect(r.status).toBe(0);
      } finally {
        closeSync(fd);
      }
      const at = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;
      const file = await readFile(path, 'utf8');
      expect(file.length).toBeGreaterThan(1000);
      expect(file.replace(at, 'T')).toBe(piped.stdout.replace(at, 'T'));
    }
  });

  it('reads .ralph in the current directory by default', () => {
    const r = ralph(['report'], tmp);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('runs folder not found: .ralph');
  });

  it('a missing folder is a usage error naming it', () => {
    const missing = join(tmp, 'nope');
    const r = ralph(['report', '--runs', missing]);
    expect(r.code).toBe(64);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(`runs folder not found: ${missing}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('an empty folder says so in one line and exits 0', async () => {
    const empty = await mkdtemp(join(tmp, 'empty-'));
    const r = ralph(['report', '--runs', empty]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`No runs found under ${empty} (no findings.jsonl or result.json).\n`);
  });

  it('refuses bad flag values with exit 64 and the choices', () => {
    const bad = [
      [['--format', 'pdf'], /--format: unknown format "pdf"[\s\S]*md, html, json/],
      [['--min-severity', 'severe'], /critical, high, medium, low, info/],
      [['--action', 'fix'], /--action: unknown value "fix"/],
      [['--since', 'last week'], /--since: cannot read/],
    ] as const;
    for (const [args, message] of bad) {
      const r = ralph(['report', '--runs', BASIC, ...args]);
      expect(r.code, args.join(' ')).toBe(64);
      expect(r.stderr).toMatch(message);
    }
  });
});
