import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildReport, parseFilters, renderHtml, renderJson } from '../../../src/findings/report/index.js';
import { UsageError } from '../../../src/errors.js';
import { FindingsLog } from '../../../src/findings/findings-log.js';
import { BASIC } from './helpers.js';

const NOW = new Date('2026-01-22T00:00:00.000Z');

describe('buildReport on the basic fixture', () => {
  it('finds runs in both the exec and the batch layout', async () => {
    const report = await buildReport({ runsDir: BASIC, now: NOW });
    expect(report.runs.map((r) => r.dir)).toEqual(['batch/runs/gamma', 'runs/run-a', 'runs/run-b', 'runs/run-c', 'runs/run-d']);
    expect(report.runs.map((r) => r.run)).toEqual(['20260120-gamma', 'run-a', 'run-b', 'run-c', 'run-d']);
    expect(report.summary.outcomes).toEqual({ blocked: 1, complete: 1, failed: 1, unknown: 2 });
    expect(report.summary.costUsd).toBeCloseTo(3.75);
    expect(report.generatedAt).toBe(NOW.toISOString());
  });

  it('groups the same finding across runs by type, normalised title and file', async () => {
    const report = await buildReport({ runsDir: BASIC, now: NOW });
    expect(report.summary.distinct).toBe(7);
    expect(report.summary.occurrences).toBe(9);
    const parser = report.findings.filter((g) => g.file?.endsWith('parser.ts'));
    expect(parser).toHaveLength(1);
    const g = parser[0]!;
    expect(g.count).toBe(3);
    expect(g.runs).toEqual(['20260120-gamma', 'run-a', 'run-b']);
    expect(g.plans).toEqual(['alpha', 'beta', 'gamma']);
    // The most severe occurrence represents the group; among equals, the latest.
    expect(g.severity).toBe('critical');
    expect(g.detail).toBe('latest critical detail');
    expect(g.firstAt).toBe('2026-01-10T10:00:00.000Z');
    expect(g.lastAt).toBe('2026-01-20T06:00:00.000Z');
    // Same title in another file is another finding.
    expect(report.findings.some((x) => x.file === 'src/lexer.ts' && x.count === 1)).toBe(true);
  });

  it('renders its findings as they are once read as objects, changes included', async () => {
    const report = await buildReport({ runsDir: BASIC, now: NOW });
    const untouched = renderJson(report);
    expect(untouched).toBe(`${JSON.stringify(report)}\n`);
    report.findings[0]!.title = 'changed </script>';
    const json = renderJson(report);
    expect(json).not.toBe(untouched);
    expect(JSON.parse(json).findings[0].title).toBe('changed </script>');
    expect(renderHtml(report)).toContain('changed \\u003c/script\\u003e');
    // A copy made by spreading gets the findings as they are too.
    expect(renderJson({ ...report })).toBe(json);
  });

  it('orders groups by severity, then type, then action', async () => {
    const report = await buildReport({ runsDir: BASIC, now: NOW });
    expect(report.findings.map((g) => `${g.severity}/${g.type}/${g.action}`)).toEqual([
      'critical/bug/needs-fix',
      'high/bug/needs-fix',
      'high/test-failed/needs-fix',
      'medium/stub/needs-implementation',
      'medium/dependency/needs-investigation',
      'low/technical-debt/needs-plan',
      'info/insight/none',
    ]);
    expect(report.summary.bySeverity.critical).toEqual({ distinct: 1, occurrences: 3 });
    expect(report.summary.bySeverity.high).toEqual({ distinct: 2, occurrences: 2 });
  });

  it('lists invalid observations with raw text and reason, and counts broken lines', async () => {
    const report = await buildReport({ runsDir: BASIC, now: NOW });
    expect(report.invalid).toEqual([
      expect.objectContaining({ run: 'run-a', plan: 'alpha', iteration: 2, error: 'unknown type "bogus"', source: 'runs/run-a/findings.jsonl:4' }),
    ]);
    expect(report.invalid[0]!.raw).toContain('<observation type="bogus"');
    expect(report.summary.brokenLines).toBe(1);
    expect(report.brokenLines[0]).toMatchObject({ file: 'runs/run-a/findings.jsonl', line: 5 });
    expect(report.problems).toEqual([expect.objectContaining({ file: 'runs/run-d/result.json' })]);
  });

  it('keeps only https PR urls', async () => {
    const report = await buildReport({ runsDir: BASIC, now: NOW });
    expect(report.runs.find((r) => r.run === 'run-a')!.prUrl).toBe('https://github.com/acme/app/pull/7');
  });
});

describe('filters', () => {
  const build = (raw: Parameters<typeof parseFilters>[0]) => buildReport({ runsDir: BASIC, filters: parseFilters(raw, NOW), now: NOW });

  it('--min-severity keeps that severity and worse', async () => {
    const report = await build({ minSeverity: 'high' });
    expect(report.findings.map((g) => g.severity)).toEqual(['critical', 'high', 'high']);
  });

  it('--min-severity drops lower occurrences before grouping', async () => {
    const report = await build({ minSeverity: 'critical' });
    // run-a reported the parser bug as high; only the two critical occurrences remain.
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]!.runs).toEqual(['20260120-gamma', 'run-b']);
  });

  it('--type and --action accept repeats and comma lists', async () => {
    const byType = await build({ type: ['stub,dependency'] });
    expect(byType.findings.map((g) => g.type).sort()).toEqual(['dependency', 'stub']);
    const byAction = await build({ action: ['needs-plan', 'none'] });
    expect(byAction.findings.map((g) => g.action).sort()).toEqual(['needs-plan', 'none']);
  });

  it('--plan narrows findings, invalid observations and runs', async () => {
    const report = await build({ plan: ['beta'] });
    expect(report.findings.every((g) => g.plans.includes('beta'))).toBe(true);
    expect(report.summary.occurrences).toBe(3);
    expect(report.summary.invalid).toBe(0);
    expect(report.runs.map((r) => r.run)).toEqual(['run-b']);
  });

  it('--since takes a duration back from an injected now, or an ISO date', async () => {
    const lastDay = await build({ since: '30h' });
    expect(lastDay.findings.map((g) => g.title)).toEqual(['Flaky auth test']);
    const fromDate = await build({ since: '2026-01-12' });
    expect(fromDate.summary.occurrences).toBe(6);
    expect(fromDate.findings.find((g) => g.file === 'src/parser.ts')!.runs).toEqual(['20260120-gamma', 'run-b']);
  });

  it('refuses unknown values with the choices', () => {
    expect(() => parseFilters({ minSeverity: 'severe' })).toThrow(UsageError);
    expect(() => parseFilters({ type: ['bug,nope'] })).toThrow(/--type: unknown value "nope"/);
    expect(() => parseFilters({ action: ['fix'] })).toThrow(UsageError);
    expect(() => parseFilters({ since: 'yesterday' })).toThrow(/--since/);
    expect(() => parseFilters({ since: '24' })).toThrow(/--since/);
  });
});

describe('input edge cases', () => {
  let dir = '';
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('a missing folder is a usage error naming it', async () => {
    const missing = join(tmpdir(), 'ralph-report-does-not-exist-xyz');
    await expect(buildReport({ runsDir: missing })).rejects.toThrow(UsageError);
    await expect(buildReport({ runsDir: missing })).rejects.toThrow(missing);
  });

  it('an empty folder yields no runs', async () => {
    dir = await mkdtemp(join(tmpdir(), 'ralph-report-'));
    const report = await buildReport({ runsDir: dir });
    expect(report.runs).toEqual([]);
    expect(report.findings).toEqual([]);
  });

  it('over-long lines, non-objects and bad fields are counted as broken, never fatal', async () => {
    dir = await mkdtemp(join(tmpdir(), 'ralph-report-'));
    await mkdir(join(dir, 'r1'));
    const good = JSON.stringify({ run: 'r1', plan: 'p', iteration: 1, at: '2026-01-01T00:00:00Z', valid: true, type: 'bug', severity: 'low', title: 't', detail: '', file: null, action: 'none' });
    const lines = [
      good,
      `{"valid":true,"title":"${'x'.repeat(5000)}"}`,
      '[1,2]',
      '"just a string"',
      JSON.stringify({ valid: true, type: 'bug', severity: 'urgent', title: 'x' }),
      JSON.stringify({ valid: true, type: 'bug', severity: 'low', title: 'x', action: 'fix-it' }),
      JSON.stringify({ valid: true, type: 'bug', severity: 'low', title: '   ' }),
      JSON.stringify({ type: 'bug' }),
      good.replace('"t"', '"u"'),
    ];
    // No trailing newline: the last line still counts.
    await writeFile(join(dir, 'r1', 'findings.jsonl'), lines.join('\r\n'));
    const report = await buildReport({ runsDir: dir, maxLineChars: 1024 });
    expect(report.summary.occurrences).toBe(2);
    expect(report.summary.brokenLines).toBe(7);
    expect(report.brokenLines.map((b) => b.line)).toEqual([2, 3, 4, 5, 6, 7, 8]);
    expect(report.brokenLines[0]!.reason).toMatch(/longer than the 1024-character limit/);
    expect(report.brokenLines[3]!.reason).toMatch(/unknown severity "urgent"/);
  });

  it('reads what FindingsLog writes', async () => {
    dir = await mkdtemp(join(tmpdir(), 'ralph-report-'));
    await mkdir(join(dir, 'r1'));
    const log = new FindingsLog(join(dir, 'r1', 'findings.jsonl'));
    const record = { valid: true, type: 'stub', severity: 'medium', title: 'A stub', detail: 'Returns a constant.', file: './src/a.ts', action: 'needs-implementation' };
    log.append({ run: 'r1', plan: 'p1', iteration: 2, at: '2026-01-01T00:00:00.000Z', record });
    log.append({ run: 'r1', plan: 'p1', iteration: 3, at: '2026-01-01T00:00:01.000Z', record: { ...record, title: 'a STUB!', file: 'src/a.ts' } });
    log.append({ run: 'r1', plan: 'p1', iteration: 3, at: '2026-01-01T00:00:02.000Z', record: { valid: false, type: null, severity: null, title: null, detail: null, file: null, action: null, raw: '<observation>', error: 'no type' } });
    log.close();
    const report = await buildReport({ runsDir: dir });
    expect(report.findings).toEqual([
      { type: 'stub', severity: 'medium', action: 'needs-implementation', title: 'a STUB!', detail: 'Returns a constant.', file: 'src/a.ts', count: 2, runs: ['r1'], plans: ['p1'], firstAt: '2026-01-01T00:00:00.000Z', lastAt: '2026-01-01T00:00:01.000Z' },
    ]);
    expect(report.invalid).toEqual([{ run: 'r1', plan: 'p1', iteration: 3, at: '2026-01-01T00:00:02.000Z', raw: '<observation>', error: 'no type', source: 'r1/findings.jsonl:3' }]);
  });

  it('reads a log bigger than a read chunk: lines across chunk ends, one too long for the limit', async () => {
    dir = await mkdtemp(join(tmpdir(), 'ralph-report-'));
    await mkdir(join(dir, 'r1'));
    // ~5 MB: five 1 MiB chunks, three distinct findings, one line too long for the limit.
    const lines = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ run: 'r1', plan: 'p', iteration: 1, at: new Date(Date.UTC(2026, 0, 1, 0, 0, i % 60)).toISOString(), valid: true, type: 'bug', severity: 'low', title: `Finding ${i % 3} ✓`, detail: 'é'.repeat(100 + (i % 77)), file: null, action: 'none' }));
    lines.splice(7_000, 0, `{"valid":true,"title":"${'x'.repeat(2_000_000)}"}`);
    await writeFile(join(dir, 'r1', 'findings.jsonl'), `${lines.join('\n')}\n`);
    const report = await buildReport({ runsDir: dir, maxLineChars: 1_000_000 });
    expect(report.summary).toMatchObject({ occurrences: 20_000, distinct: 3, brokenLines: 1 });
    expect(report.brokenLines).toEqual([{ file: 'r1/findings.jsonl', line: 7_001, reason: 'line of 2000025 characters is longer than the 1000000-character limit' }]);
    expect(report.findings.map((g) => g.count)).toEqual([6_667, 6_667, 6_666]);
  });

  it('uses the folder name when records carry no run id', async () => {
    dir = await mkdtemp(join(tmpdir(), 'ralph-report-'));
    await mkdir(join(dir, 'nightly-7'));
    await writeFile(join(dir, 'nightly-7', 'findings.jsonl'), `${JSON.stringify({ valid: true, type: 'stub', severity: 'info', title: 'x' })}\n`);
    const report = await buildReport({ runsDir: dir });
    expect(report.findings[0]!.runs).toEqual(['nightly-7']);
    expect(report.findings[0]!.action).toBe('none');
    expect(report.runs[0]!.run).toBe('nightly-7');
  });
});
