import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, renderHtml, renderJson, renderMarkdown, type Report } from '../../../src/findings/report/index.js';
import { MD_MAX_CHARS } from '../../../src/findings/report/render-markdown.js';
import { BASIC, findingLine, MALICIOUS, writeManyRuns } from './helpers.js';
import { HOSTILE_PR_URL, HOSTILE_TEXT, inspectGfm } from '../../util/gfm.js';

const NOW = new Date('2026-03-01T00:00:00.000Z');
let basic: Report;
let evil: Report;
/** 60 runs x 40 findings plus recurring ones: more than a PR comment holds, several json chunks. */
let big: Report;
let bigDir = '';
beforeAll(async () => {
  basic = await buildReport({ runsDir: BASIC, now: NOW });
  evil = await buildReport({ runsDir: MALICIOUS, now: NOW });
  bigDir = await mkdtemp(join(tmpdir(), 'ralph-report-big-'));
  await writeManyRuns(bigDir, 60, 40);
  big = await buildReport({ runsDir: bigDir, now: NOW });
});
afterAll(async () => {
  if (bigDir) await rm(bigDir, { recursive: true, force: true });
});

interface TableData {
  severities: string[];
  types: string[];
  actions: string[];
  plans: string[];
  runs: string[];
  width: number;
  findings: unknown[];
}

function dataBlock(html: string): TableData {
  return JSON.parse(/<script type="application\/json" id="report-data">([^]*?)<\/script>/.exec(html)![1]!) as TableData;
}

/** Pipes not escaped by a backslash: the cell separators of a table row. */
function cellSeparators(line: string): number {
  let n = 0;
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\\') i++;
    else if (line[i] === '|') n++;
  }
  return n;
}

/** Lines outside fenced code blocks. */
function outsideFences(md: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of md.split('\n')) {
    const m = /^(`{3,}|~{3,})/.exec(line);
    if (fence === null && m) fence = m[1]!;
    else if (fence !== null && line.trim() === fence) fence = null;
    else if (fence === null) out.push(line);
  }
  expect(fence).toBeNull();
  return out;
}

describe('markdown', () => {
  it('puts summary counts first, then findings, then run outcomes', () => {
    const md = renderMarkdown(basic);
    const summary = md.indexOf('| severity | findings | occurrences |');
    const findings = md.indexOf('### Findings');
    const runs = md.indexOf('### Run outcomes');
    expect(summary).toBeGreaterThan(0);
    expect(findings).toBeGreaterThan(summary);
    expect(runs).toBeGreaterThan(findings);
    expect(md).toContain('**7 findings** (9 occurrences) across **5 runs**');
    expect(md).toContain('| critical | 1 | 3 |');
    expect(md).toMatch(/\| Null {3}Pointer in parser \| src\/parser\.ts \| 3× \| 20260120-gamma, run-a, run-b \|/);
    expect(md).toContain('[PR](https://github.com/acme/app/pull/7)');
    expect(md).toContain('### Invalid observations (1)');
    expect(md).toContain('unknown type "bogus"');
  });

  it('keeps every malicious text inside its table cell or fence', () => {
    const md = renderMarkdown(evil);
    const lines = outsideFences(md);
    // Table rows keep their column count: a header row tells how many separators each row has.
    let expected = -1;
    for (const line of lines) {
      if (!line.startsWith('|')) {
        expected = -1;
        continue;
      }
      if (expected === -1) expected = cellSeparators(line);
      expect(cellSeparators(line), line).toBe(expected);
    }
    const headings = lines.filter((l) => l.startsWith('#'));
    expect(headings.every((h) => /^#{2,4} (ralph observations report|Findings|Run outcomes|Receipts|Invalid observations \(1\)|critical|high|medium|low|info)$/.test(h))).toBe(true);
    const prose = lines.join('\n');
    expect(prose).not.toMatch(/<(script|img|svg|iframe|style|details)/i);
    expect(prose).not.toMatch(/\]\(javascript:/i);
    expect(prose).not.toMatch(/!\[/);
    expect(prose).not.toMatch(/@everyone/);
    expect(prose).not.toMatch(/(^|[^\\])`/);
    // No PR link for javascript: or http: urls; the quote in the https one is percent-encoded.
    expect(md).not.toMatch(/\[PR\]\((?!https:)/);
    expect(md).toContain('[PR](https://github.com/acme/app/pull/9%22%3E%3Cscript%3Ewindow.__pwned=10%3C/script%3E)');
    expect(md.match(/\[PR\]/g)).toHaveLength(1);
  });
});

describe('markdown size budget', () => {
  it('fits a PR comment: complete counts, the most severe and most seen findings, and how many more', () => {
    expect(big.summary.distinct).toBe(60 * 40 + 59);
    const md = renderMarkdown(big, { maxChars: 12_000 });
    expect(md.length).toBeLessThanOrEqual(12_000);
    // Counts stay complete.
    expect(md).toContain(`**${big.summary.distinct} findings** (${big.summary.occurrences} occurrences) across **60 runs**`);
    expect(md).toContain(`| critical | ${big.summary.bySeverity.critical.distinct} | ${big.summary.bySeverity.critical.occurrences} |`);
    // Most seen critical first: "Recurring 0" was seen in 59 runs.
    const rows = md.split('\n').filter((l) => /^\| .* \| \d+× \|/.test(l));
    expect(rows[0]).toMatch(/^\| Recurring 0 \|  \| 59× \|/);
    // Only critical findings fit; the rest are counted, with the way to see them.
    const listed = rows.length;
    expect(listed).toBeGreaterThan(5);
    expect(md).not.toContain('#### high');
    const more = /\.\.\.and (\d+) more findings \((\d+) occurrences\) not listed here: `ralph report --format html` or `--format json` lists them all\./.exec(md)!;
    expect(Number(more[1])).toBe(big.summary.distinct - listed);
    // Runs that did not complete come first.
    expect(md).toMatch(/### Run outcomes\n\n.*\n.*\n\| run-000 \| plan-0 \| failed \|/);
  });

  it('cuts the run table too when it must, failed runs first, and counts the rest', () => {
    const md = renderMarkdown(big, { maxChars: 3_000 });
    expect(md.length).toBeLessThanOrEqual(3_000);
    const runRows = md.split('\n').filter((l) => /^\| run-\d+ \|/.test(l));
    expect(runRows.length).toBeGreaterThan(3);
    expect(runRows.slice(0, 3).every((l) => l.includes('| failed |'))).toBe(true);
    const more = /\.\.\.and (\d+) more runs: `ralph report --format html` or `--format json` lists them all\./.exec(md)!;
    expect(Number(more[1])).toBe(60 - runRows.length);
  });

  it('keeps the default under GitHub\'s comment limit however big the report', () => {
    const md = renderMarkdown(big);
    expect(md.length).toBeLessThanOrEqual(MD_MAX_CHARS);
    expect(MD_MAX_CHARS).toBeLessThan(65_536);
  });

  it('lists everything, with no note, when it all fits', () => {
    const md = renderMarkdown(basic);
    expect(md).not.toContain('not listed here');
    expect(md).not.toContain('more runs');
    expect(md.match(/\| \d+× \|/g)).toHaveLength(7);
  });
});

describe('json', () => {
  it('is exactly JSON.stringify of the report, across chunk boundaries', () => {
    expect(big.findings.length).toBeGreaterThan(2_000);
    expect(renderJson(big)).toBe(`${JSON.stringify(big)}\n`);
    expect(renderJson(basic)).toBe(`${JSON.stringify(basic)}\n`);
    const empty: Report = { ...basic, findings: [], invalid: [], brokenLines: [], runs: [], problems: [] };
    expect(renderJson(empty)).toBe(`${JSON.stringify(empty)}\n`);
  });

  it('is the documented Report shape', () => {
    const parsed = JSON.parse(renderJson(basic)) as Report;
    expect(parsed.version).toBe(1);
    expect(Object.keys(parsed)).toEqual(['version', 'generatedAt', 'runsDir', 'filters', 'summary', 'findings', 'invalid', 'brokenLines', 'runs', 'problems']);
    expect(Object.keys(parsed.findings[0]!)).toEqual(['type', 'severity', 'action', 'title', 'detail', 'file', 'count', 'runs', 'plans', 'firstAt', 'lastAt']);
    expect(parsed.summary).toMatchObject({ runs: 5, occurrences: 9, distinct: 7, invalid: 1, brokenLines: 1 });
  });

  it('drops non-https PR urls', () => {
    const parsed = JSON.parse(renderJson(evil)) as Report;
    expect(parsed.runs.map((r) => r.prUrl)).toEqual([null, 'https://github.com/acme/app/pull/9%22%3E%3Cscript%3Ewindow.__pwned=10%3C/script%3E', null]);
  });
});

describe('html', () => {
  it('is self-contained: no external resource, a CSP allowing only its own script and style by hash', () => {
    const html = renderHtml(basic);
    expect(html).not.toMatch(/\s(src|href)="(?!https:\/\/github\.com\/acme\/app\/pull\/7")/);
    expect(html).not.toMatch(/<link|@import|url\(/);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)![1]!.replace(/&#39;/g, "'");
    expect(csp).toContain("default-src 'none'");
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).toHaveLength(1);
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    expect(csp).toContain(`script-src ${hash(scripts[0]!)}`);
    expect(csp).toContain(`style-src ${hash(style)}`);
    expect(csp).not.toContain('unsafe');
  });

  it('draws counts by severity as an inline SVG and lists every finding and run', () => {
    const html = renderHtml(basic);
    expect(html).toMatch(/<svg id="severity-chart"[^>]*>/);
    expect(html.match(/<rect /g)).toHaveLength(5);
    // The findings travel once, as data; the page's script builds the rows (see browser.test.ts).
    const data = dataBlock(html);
    expect(data.findings).toHaveLength(7 * data.width);
    const titles = Array.from({ length: 7 }, (_, i) => data.findings[i * data.width + 3]);
    expect(titles).toEqual(basic.findings.map((g) => g.title));
    const first = data.findings.slice(0, data.width);
    expect([data.severities[first[0] as number], data.types[first[1] as number], data.actions[first[2] as number], first[4], first[5], first[6]]).toEqual([
      'critical', 'bug', 'needs-fix', 'latest critical detail', 'src/parser.ts', 3,
    ]);
    expect((first[7] as number[]).map((k) => data.runs[k])).toEqual(['20260120-gamma', 'run-a', 'run-b']);
    expect((first[8] as number[]).map((k) => data.plans[k])).toEqual(['alpha', 'beta', 'gamma']);
    expect(html.match(/<tr><td title=/g)).toHaveLength(5);
    expect(html).toContain('<a href="https://github.com/acme/app/pull/7" rel="noopener noreferrer" target="_blank">PR</a>');
    expect(html).toContain('$1.25');
  });

  it('carries every finding of a big report in its data block', () => {
    const data = dataBlock(renderHtml(big));
    expect(data.findings).toHaveLength(big.findings.length * data.width);
    const last = big.findings.length - 1;
    expect(data.findings[last * data.width + 3]).toBe(big.findings[last]!.title);
    expect(data.runs).toHaveLength(60);
  });

  it('escapes every malicious text', () => {
    const html = renderHtml(evil);
    // Only our two script elements exist; no agent-written tag or handler survives.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toMatch(/<(img|svg onload|iframe|style>body)/);
    // No real tag (agent text cannot open one: every < is &lt;) carries an event handler.
    expect(html).not.toMatch(/<[a-z][^>]*\son\w+=/i);
    expect(html).not.toMatch(/href="(?!https:)/);
    const data = /<script type="application\/json" id="report-data">([^]*?)<\/script>/.exec(html)![1]!;
    expect(data).not.toMatch(/[<>&\u2028\u2029]/);
    const parsed = JSON.parse(data) as TableData;
    expect(parsed.plans).toContain('</script><script>window.__pwned=8</script>');
    // Agent text reaches the data block intact (the browser test shows it lands as text).
    expect(parsed.findings).toContain('<script>window.__pwned = 1</script>');
    expect(parsed.findings).toContain('<img src=x onerror="window.__pwned=3;alert(3)">');
    // Server-rendered agent text (invalid observations) is entity-escaped.
    expect(html).toContain('&lt;title&gt;&lt;script&gt;window.__pwned=9&lt;/script&gt;');
  });
});

describe('a hostile PR_URL and agent text (issue 15)', () => {
  let dir = '';
  let hostile: Report;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ralph-report-hostile-'));
    const runs: Array<[string, unknown]> = [
      ['evil', HOSTILE_PR_URL],
      ['gitlab', 'https://gitlab.example.com/a/b/-/merge_requests/3'],
      ['github', 'https://github.com/acme/app/pull/7'],
      ['huge', `https://github.com/a/b/pull/1${'x'.repeat(10_000_000)}`],
    ];
    for (const [run, prUrl] of runs) {
      await mkdir(join(dir, run));
      await writeFile(join(dir, run, 'result.json'), JSON.stringify({ run, plan: HOSTILE_TEXT, outcome: 'blocked', exitCode: 2, reason: HOSTILE_TEXT, prUrl }));
      await writeFile(join(dir, run, 'findings.jsonl'), `${findingLine({ run, title: HOSTILE_TEXT, detail: HOSTILE_TEXT, file: HOSTILE_PR_URL })}\n`);
    }
    hostile = await buildReport({ runsDir: dir, now: NOW });
  });
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('md, rendered as GitHub Markdown: no image, no javascript: link, no extra cell, no HTML, no mention', () => {
    const got = inspectGfm(renderMarkdown(hostile));
    expect(got.images).toBe(0);
    // The only links are the strict PR URLs.
    expect(got.hrefs.sort()).toEqual(['https://github.com/acme/app/pull/7', 'https://gitlab.example.com/a/b/-/merge_requests/3']);
    expect(got.rawTags.filter((t) => t !== 'br')).toEqual([]);
    expect(got.text).not.toMatch(/@everyone|@evil/);
    // Every row of a table has as many cells as its header.
    const tables = renderMarkdown(hostile).split(/\n\n/).filter((b) => b.startsWith('|'));
    expect(tables.length).toBeGreaterThan(1);
    for (const table of tables) {
      const cells = inspectGfm(table).rowCells;
      expect(new Set(cells).size, table.slice(0, 200)).toBe(1);
    }
  });

  it('labels a PR link by its host when it is not on github.com, and never copies a huge PR_URL', () => {
    const md = renderMarkdown(hostile);
    expect(md).toContain('[gitlab.example.com](https://gitlab.example.com/a/b/-/merge_requests/3)');
    expect(md).toContain('[PR](https://github.com/acme/app/pull/7)');
    const html = renderHtml(hostile);
    expect(html).toContain('<a href="https://gitlab.example.com/a/b/-/merge_requests/3" rel="noopener noreferrer" target="_blank">gitlab.example.com</a>');
    expect(html).toContain('<a href="https://github.com/acme/app/pull/7" rel="noopener noreferrer" target="_blank">PR</a>');
    const json = renderJson(hostile);
    expect(JSON.parse(json).runs.map((r: { run: string; prUrl: string | null }) => [r.run, r.prUrl])).toEqual([
      ['evil', null],
      ['github', 'https://github.com/acme/app/pull/7'],
      ['gitlab', 'https://gitlab.example.com/a/b/-/merge_requests/3'],
      ['huge', null],
    ]);
    for (const out of [md, html, json]) expect(out.length).toBeLessThan(200_000);
  });

  it('html: the same payload is text, never markup or a link', () => {
    const html = renderHtml(hostile);
    expect(html).not.toMatch(/<img|<script>alert|href="(?!https:\/\/(github\.com\/acme|gitlab\.example\.com))/);
    expect(html.match(/<a /g)).toHaveLength(2);
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
  });
});
