import fc from 'fast-check';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACTIONS, OBSERVATION_TYPES, SEVERITIES } from '../../../src/contract.js';
import { buildReport, renderHtml, renderJson, renderMarkdown, type Report, type ReportFilters } from '../../../src/findings/report/index.js';
import { createRecordScanner, findName, INPUT, names } from '../../../src/findings/report/record-scan.js';
import { FindingsLog } from '../../../src/findings/findings-log.js';
import { readFileSync } from 'node:fs';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ralph-record-scan-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});


/** Every line of `bytes` through the scanner: its values (or undefined) and where it ended. */
function scanLines(bytes: Buffer): { values: unknown; line: Buffer }[] {
  const scanner = createRecordScanner();
  if (scanner === undefined) throw new Error('no WebAssembly here');
  const path = join(dir, 'log.jsonl');
  writeFileSync(path, bytes);
  const fd = openSync(path, 'r');
  const stop = scanner.load(fd, bytes.length);
  closeSync(fd);
  const out: { values: unknown; line: Buffer }[] = [];
  for (let at = INPUT; at < stop; ) {
    const values = scanner.read(at, stop);
    const end = scanner.lineEnd();
    out.push({ values, line: Buffer.from(scanner.memory.u8.subarray(at, end)) });
    at = end + 1;
  }
  return out;
}

// Text that exercises what JSON escapes and what UTF-8 encodes: quotes, backslashes, controls,
// non-ASCII, astral characters, lone surrogates (written as \u escapes by JSON.stringify).
const text = fc.string({ unit: fc.oneof(fc.constantFrom('"', '\\', '\n', '\t', '\u0001', '/', 'é', '😀', '\ud800', ' '), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 40 });
const plain = fc.string({ unit: fc.constantFrom('a', 'B', '1', ' ', ':', '-', '.', 'é', '😀', '<', '>', '&', '—', '\u2028'), maxLength: 60 });
// Mostly records ralph would write (so most lines take the scanner's path), some that it would not.
const often = <T, U>(usual: fc.Arbitrary<T>, other: fc.Arbitrary<U>) => fc.oneof({ arbitrary: usual, weight: 5 }, { arbitrary: other, weight: 1 });
const record = fc.record({
  run: fc.oneof(plain, text),
  plan: fc.oneof(plain, text),
  iteration: often(fc.nat({ max: 1000 }), fc.constantFrom(0, 123456789012345, 1234567890123456, 1e21, -1, 1.5, null)),
  at: often(fc.constant('2026-01-01T00:00:00.000Z'), plain),
  valid: fc.constant(true),
  type: often(fc.constantFrom(...OBSERVATION_TYPES), plain),
  severity: often(fc.constantFrom(...SEVERITIES), plain),
  title: often(plain, text),
  detail: fc.oneof(plain, text, fc.string({ maxLength: 400 })),
  file: fc.oneof(fc.constant(null), plain, text),
  action: often(fc.constantFrom(...ACTIONS), plain),
});
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** What can happen to a line between ralph writing it and the report reading it. */
const mutation = fc.constantFrom('none', 'none', 'none', 'none', 'crlf', 'spaces', 'reordered', 'invalid', 'truncated', 'extra');
function lineOf(r: Record<string, unknown>, how: string): string {
  const json = JSON.stringify(r);
  switch (how) {
    case 'crlf':
      return `${json}\r`;
    case 'spaces':
      return JSON.stringify(r, null, 1).replace(/\n/g, ' ');
    case 'reordered':
      return JSON.stringify({ title: r.title, ...r });
    case 'invalid':
      return JSON.stringify({ ...r, valid: false, raw: '<observation>', error: 'why' });
    case 'truncated':
      return json.slice(0, Math.max(1, json.length - 3));
    case 'extra':
      return `${json.slice(0, -1)},"more":1}`;
    default:
      return json;
  }
}

describe('record scanner', () => {
  it('reads a line ralph writes, plain text in every field, as JSON.parse does', () => {
    const r = { run: 'r1', plan: 'p', iteration: 3, at: '2026-01-01T00:00:00.000Z', valid: true, type: 'bug', severity: 'high', title: 'Null ✓ 😀', detail: 'd', file: null, action: 'none' };
    const [line] = scanLines(Buffer.from(`${JSON.stringify(r)}\n`));
    expect(line!.values).toEqual(r);
    const [withFile] = scanLines(Buffer.from(JSON.stringify({ ...r, file: 'src/a.ts' })));
    expect(withFile!.values).toEqual({ ...r, file: 'src/a.ts' });
  });

  it('reads what FindingsLog writes (if the writer changes its form, this fails first)', () => {
    const path = join(dir, 'written.jsonl');
    const log = new FindingsLog(path);
    const record = { valid: true, type: 'stub', severity: 'medium', title: 'A stub', detail: 'Returns a constant.', file: 'src/a.ts', action: 'needs-implementation' };
    log.append({ run: 'r1', plan: 'p1', iteration: 2, at: '2026-01-01T00:00:00.000Z', record });
    log.append({ run: 'r1', plan: 'p1', iteration: 3, at: '2026-01-01T00:00:01.000Z', record: { ...record, file: null } });
    log.close();
    const lines = scanLines(readFileSync(path));
    expect(lines.filter((l) => l.line.length > 0).map((l) => l.values)).toEqual([
      { run: 'r1', plan: 'p1', iteration: 2, at: '2026-01-01T00:00:00.000Z', ...record },
      { run: 'r1', plan: 'p1', iteration: 3, at: '2026-01-01T00:00:01.000Z', ...record, file: null },
    ]);
  });

  it('gives every line either JSON.parse\'s values or none, and finds every line end', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(record, mutation), { minLength: 1, maxLength: 30 }), fc.boolean(), (lines, finalNewline) => {
        // As read back: a truncated line may end in half a surrogate pair, which UTF-8 cannot hold.
        const texts = lines.map(([r, how]) => Buffer.from(lineOf(r, how)).toString('utf8'));
        const scanned = scanLines(Buffer.from(texts.join('\n') + (finalNewline ? '\n' : '')));
        expect(scanned.map((s) => s.line.toString('utf8'))).toEqual(texts);
        for (const [i, s] of scanned.entries()) {
          if (s.values === undefined) continue;
          expect(s.values).toEqual(JSON.parse(texts[i]!));
        }
        // Lines ralph writes whose strings need no escapes are all read by the scanner.
        for (const [i, [r, how]] of lines.entries()) {
          const strings = Object.values(r).filter((v): v is string => typeof v === 'string');
          // JSON.stringify escapes quotes, backslashes, controls and lone surrogates.
          const canonical = how === 'none' && strings.every((v) => !LONE_SURROGATE.test(v) && !/["\\\u0000-\u001f]/.test(v));
          const integer = Number.isInteger(r.iteration) && (r.iteration as number) >= 0 && (r.iteration as number) < 1e15;
          if (canonical && integer) expect(scanned[i]!.values).toBeDefined();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('builds the same report as JSON.parse over logs with every kind of line, and invalid UTF-8', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.tuple(record, mutation), { maxLength: 12 }), { minLength: 1, maxLength: 4 }), fc.uint8Array({ maxLength: 6 }), async (runs, junk) => {
        const root = await mkdtemp(join(dir, 'runs-'));
        for (const [k, lines] of runs.entries()) {
          await mkdir(join(root, `run-${k}`));
          const body = Buffer.concat([Buffer.from(lines.map(([r, how]) => lineOf(r, how)).join('\n')), Buffer.from('\n'), Buffer.from(junk), Buffer.from('\n\uFEFF{}\n')]);
          await writeFile(join(root, `run-${k}`, 'findings.jsonl'), k === 0 ? Buffer.concat([Buffer.from('\uFEFF'), body]) : body);
        }
        await expectSameReports(root);
        await rm(root, { recursive: true, force: true });
      }),
      { numRuns: 60 },
    );
  });

  it('groups the same findings from bytes as from JSON.parse: titles and files equal once normalised, times, severities', async () => {
    // Few distinct values, so findings recur across and within runs: titles that differ in case,
    // punctuation, spacing and script, files in ./ and backslashes, times out of order and
    // unreadable, details of every length (so the text shown is replaced by longer and shorter).
    const title = fc.constantFrom('Null pointer', 'null-POINTER!', 'Null pointer.', 'Ｎｕｌｌ ｐｏｉｎｔｅｒ', 'Café crème', 'cafe creme', 'TODO', 'todo');
    const file = fc.constantFrom(null, 'src/a.ts', './src/a.ts', 'src\\a.ts', 'src/b.ts', 'é/b.ts', '  ');
    const at = fc.constantFrom('2026-01-02T03:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-03T00:00:00.000Z', '2026-01-02T03:00:00+02:00', 'not a time', '');
    const recurring = fc.record({
      run: fc.constantFrom('r1', 'r2'),
      plan: fc.constantFrom('', 'alpha', 'beta'),
      iteration: fc.nat({ max: 3 }),
      at,
      valid: fc.constant(true),
      type: fc.constantFrom('bug', 'stub'),
      severity: fc.constantFrom(...SEVERITIES),
      title,
      detail: fc.oneof(fc.constantFrom('', 'short', 'é'), plain, fc.string({ maxLength: 300 })),
      file,
      action: fc.constantFrom('none', 'needs-fix'),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(recurring, { maxLength: 25 }), { minLength: 1, maxLength: 3 }), async (runs) => {
        const root = await mkdtemp(join(dir, 'recurring-'));
        for (const [k, lines] of runs.entries()) {
          await mkdir(join(root, `run-${k}`));
          await writeFile(join(root, `run-${k}`, 'findings.jsonl'), lines.map((r) => `${JSON.stringify(r)}\n`).join(''));
        }
        await expectSameReports(root);
        await rm(root, { recursive: true, force: true });
      }),
      { numRuns: 150 },
    );
  });

  it('reads logs whose findings outgrow the memory the scanner started with', async () => {
    // Megabytes of distinct text: the memory grows while a log is being read, under the views of
    // it that the line being read was matched in.
    const root = await mkdtemp(join(dir, 'big-'));
    for (let run = 0; run < 3; run++) {
      await mkdir(join(root, `run-${run}`));
      const lines = Array.from({ length: 3_000 }, (_, i) => {
        const n = i % 7 === 0 ? i % 50 : run * 10_000 + i;
        return JSON.stringify({ run: `run-${run}`, plan: 'p', iteration: 1, at: new Date(Date.UTC(2026, 0, 1, 0, run, i % 60)).toISOString(), valid: true, type: 'bug', severity: SEVERITIES[n % 5], title: `Finding ${n} ${'t'.repeat(n % 1_000)}`, detail: `${n} `.repeat(n % 60), file: n % 3 === 0 ? null : `src/${n % 11}.ts`, action: 'none' });
      });
      await writeFile(join(root, `run-${run}`, 'findings.jsonl'), `${lines.join('\n')}\n`);
    }
    const report = await buildReport({ runsDir: root });
    expect(report.problems).toEqual([]);
    expect(report.summary.occurrences).toBe(9_000);
    await expectSameReports(root);
    // Filters apply to lines read as bytes as to lines parsed.
    const filterSets: ReportFilters[] = [{ minSeverity: 'high' }, { types: ['bug'], since: '2026-01-01T00:01:00.000Z' }, { plans: ['q'] }, { actions: ['none'], since: '2026-01-01T00:02:30.000Z' }];
    for (const filters of filterSets) {
      const filtered = await expectSameReports(root, filters);
      expect(filtered.summary.occurrences).toBeLessThan(9_000);
    }
  });

  /** The report read with the scanner is the one read with JSON.parse, as data and as text. */
  async function expectSameReports(root: string, filters?: ReportFilters): Promise<Report> {
    const now = new Date('2026-02-01T00:00:00.000Z');
    const parsed = await buildReport({ runsDir: root, now, scan: false, filters });
    // Rendered before its findings are read as objects (which makes the formats use those).
    const scanned = await buildReport({ runsDir: root, now, filters });
    const json = renderJson(scanned);
    const html = renderHtml(scanned);
    expect(json).toBe(renderJson(parsed));
    expect(html).toBe(renderHtml(parsed));
    expect(renderMarkdown(scanned)).toBe(renderMarkdown(parsed));
    expect(scanned).toEqual(parsed);
    // Groups read from plain lines are written from templates: the text must be the same as
    // JSON.stringify's.
    expect(json).toBe(`${JSON.stringify(scanned)}\n`);
    return scanned;
  }

  /** A runs folder with one run whose log has the same finding twice, the second time later and
   *  with `detail` (so it becomes the one shown). */
  async function sameFindingTwice(detail: string): Promise<string> {
    const root = await mkdtemp(join(dir, 'twice-'));
    await mkdir(join(root, 'r1'));
    const first = { run: 'r1', plan: 'p', iteration: 1, at: '2026-01-01T00:00:00.000Z', valid: true, type: 'bug', severity: 'low', title: 'Same finding', detail: 'plain', file: 'a.ts', action: 'none' };
    const later = { ...first, at: '2026-01-02T00:00:00.000Z', detail };
    await writeFile(join(root, 'r1', 'findings.jsonl'), `${JSON.stringify(first)}\n${JSON.stringify(later)}\n`);
    return root;
  }

  it('writes a finding seen plain and then with escapes as JSON.stringify does', async () => {
    const later = { detail: 'has "quotes", a \\ and\na new line </script>' };
    const report = await buildReport({ runsDir: await sameFindingTwice(later.detail) });
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]!.detail).toBe(later.detail);
    expect(renderJson(report)).toBe(`${JSON.stringify(report)}\n`);
  });

  it('escapes a finding for a script block once any occurrence of it needs that', async () => {
    const root = await sameFindingTwice('closes </script><script>alert(1)</script> & more');
    const now = new Date('2026-02-01T00:00:00.000Z');
    const html = renderHtml(await buildReport({ runsDir: root, now }));
    expect(html).toBe(renderHtml(await buildReport({ runsDir: root, now, scan: false })));
    expect(html).not.toContain('</script><script>alert');
  });

  it('finds a name by its bytes, also among names alike in length and first, middle and last letters', () => {
    const list = names(['bug', 'abxcd', 'abxxd', ...ACTIONS]);
    const find = (text: string) => {
      const b = Buffer.from(`[${text}]`);
      return findName(list, b, 1, b.length - 1);
    };
    expect(['bug', 'abxcd', 'abxxd', 'needs-investigation', 'needs-documentation', 'none'].map(find)).toEqual([0, 1, 2, 6, 7, 9]);
    expect(['', 'bu', 'bugs', 'Bug', 'abxyd', 'needs-investigatioN', 'é'].map(find)).toEqual([-1, -1, -1, -1, -1, -1, -1]);
  });

  it('takes a log bigger than its memory so far, and then a smaller one', () => {
    const r = { run: 'r', plan: 'p', iteration: 1, at: 'a', valid: true, type: 'bug', severity: 'low', title: 't', detail: 'x'.repeat(200_000), file: null, action: 'none' };
    const big = scanLines(Buffer.from(`${JSON.stringify(r)}\n`.repeat(3)));
    expect(big.map((s) => (s.values as { detail: string }).detail.length)).toEqual([200_000, 200_000, 200_000]);
    const small = scanLines(Buffer.from(JSON.stringify({ ...r, detail: 'd' })));
    expect(small[0]!.values).toEqual({ ...r, detail: 'd' });
  });
});
