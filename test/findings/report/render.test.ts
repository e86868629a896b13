import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildReport, renderHtml, renderJson, renderMarkdown, type Report } from '../../../src/findings/report/index.js';
import { BASIC, MALICIOUS } from './helpers.js';

const NOW = new Date('2026-03-01T00:00:00.000Z');
let basic: Report;
let evil: Report;
beforeAll(async () => {
  basic = await buildReport({ runsDir: BASIC, now: NOW });
  evil = await buildReport({ runsDir: MALICIOUS, now: NOW });
});

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
    expect(headings.every((h) => /^#{2,4} (ralph observations report|Findings|Run outcomes|Invalid observations \(1\)|critical|high|medium|low|info)$/.test(h))).toBe(true);
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

describe('json', () => {
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
    expect(html.match(/<tr data-severity=/g)).toHaveLength(7);
    expect(html).toContain('<a href="https://github.com/acme/app/pull/7" rel="noopener noreferrer" target="_blank">PR</a>');
    expect(html).toContain('$1.25');
  });

  it('escapes every malicious text', () => {
    const html = renderHtml(evil);
    // Only our two script elements exist; no agent-written tag or handler survives.
    expect(html.match(/<script/g)).toHaveLength(2);
    expect(html).not.toMatch(/<(img|svg onload|iframe|style>body)/);
    // No real tag (agent text cannot open one: every < is &lt;) carries an event handler.
    expect(html).not.toMatch(/<[a-z][^>]*\son\w+=/i);
    expect(html).toContain('&lt;img src=x onerror=&quot;window.__pwned=3;alert(3)&quot;&gt;');
    expect(html).not.toMatch(/href="(?!https:)/);
    const data = /<script type="application\/json" id="report-data">([^]*?)<\/script>/.exec(html)![1]!;
    expect(data).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(data).plans).toContain('</script><script>window.__pwned=8</script>');
    expect(html).toContain('&lt;script&gt;window.__pwned = 1&lt;/script&gt;');
  });
});
