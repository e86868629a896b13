// `ralph report | head`: when the reader goes away, ralph stops writing quietly: no stack trace,
// no internal error, exit 0.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { BIN } from '../helpers/run-ralph.js';

const dir = mkdtempSync(join(tmpdir(), 'ralph-epipe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('a report piped into a reader that closes early ends quietly with exit 0', async () => {
  // Enough distinct findings that the report is far larger than one pipe buffer.
  const run = join(dir, 'runs', 'r1');
  mkdirSync(run, { recursive: true });
  const lines: string[] = [];
  for (let i = 0; i < 20_000; i++) {
    lines.push(JSON.stringify({
      run: 'r1', plan: 'p', iteration: 1, at: '2026-11-22T00:00:00.000Z', valid: true, type: 'bug', severity: 'high',
      title: `finding number ${i}`, detail: 'x'.repeat(200), file: `src/f${i}.ts`, action: 'needs-fix',
    }));
  }
  writeFileSync(join(run, 'findings.jsonl'), `${lines.join('\n')}\n`);

  const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((done) => {
    const child = spawn(process.execPath, [BIN, 'report', '--runs', dir, '--format', 'json']);
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.stdout.once('data', () => child.stdout.destroy());
    child.on('close', (c) => done({ code: c, stderr: err }));
  });
  expect(stderr).not.toMatch(/EPIPE|internal error|\n\s+at /);
  expect(code).toBe(0);
});
