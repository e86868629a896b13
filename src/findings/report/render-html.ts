// One self-contained html file: no external resources, a strict CSP, agent text escaped as HTML
// entities everywhere, and the findings as data in an escaped JSON block, from which the page's
// own script builds the table (see html-assets.ts).
import { SEVERITIES, type Severity } from '../../contract.js';
import { joinChunks, type Chunk, type Piece } from './byte-output.js';
import { escapeHtml as h, jsonForScript, safeHttpsUrl, scriptSafe, stripControls } from './escape.js';
import { filterLine, formatCost, outcomeLine, plural, runOutcome } from './format-common.js';
import { CONTENT_SECURITY_POLICY, REPORT_SCRIPT, REPORT_STYLE } from './html-assets.js';
import { findingSource } from './finding-source.js';
import { BYTES_PER_CHUNK, FINDINGS_PER_CHUNK, pieceOf, writeTexts, type TextPieces } from './render-json.js';
import { type FindingFields, type FindingGroup, type FindingSource, type Report } from './types.js';

const BAR_COLOURS: Record<Severity, string> = {
  critical: '#c0392b',
  high: '#e67e22',
  medium: '#f1c40f',
  low: '#3498db',
  info: '#95a5a6',
};

// One scan answers "anything to do?" for the common case of plain text.
const NEEDS_WORK = /[&<>"'\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** Escapes agent text for HTML, dropping control characters first. */
const t = (text: string): string => (NEEDS_WORK.test(text) ? h(stripControls(text)) : text);

export function renderHtml(report: Report): string {
  return joinChunks(htmlChunks(report));
}

/** The page in pieces; the findings data block is serialised a slice at a time. */
export function* htmlChunks(report: Report): Generator<Chunk> {
  const s = report.summary;
  const filters = filterLine(report);
  const parts: string[] = [
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
    `<meta http-equiv="Content-Security-Policy" content="${h(CONTENT_SECURITY_POLICY)}">\n`,
    '<meta name="referrer" content="no-referrer">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n',
    '<title>ralph observations report</title>\n',
    `<style>${REPORT_STYLE}</style>\n</head>\n<body>\n`,
    '<h1>ralph observations report</h1>\n',
    `<p class="muted">${h(plural(s.distinct, 'finding'))} (${h(plural(s.occurrences, 'occurrence'))}) across ${h(plural(s.runs, 'run'))}`,
    s.invalid > 0 ? ` · ${h(plural(s.invalid, 'invalid observation'))}` : '',
    s.brokenLines > 0 ? ` · ${h(plural(s.brokenLines, 'unreadable log line'))} skipped` : '',
    ` · generated ${h(report.generatedAt)} from ${t(report.runsDir)}`,
    filters !== '' ? ` · filtered: ${t(filters)}` : '',
    '</p>\n',
    '<h2>Findings by severity</h2>\n',
    severityChart(report),
    '<h2>Findings</h2>\n',
    '<form id="filters" role="search">',
    '<label>Severity <select id="f-severity"><option value="">all</option></select></label>',
    '<label>Type <select id="f-type"><option value="">all</option></select></label>',
    '<label>Action <select id="f-action"><option value="">all</option></select></label>',
    '<label>Plan <select id="f-plan"><option value="">all</option></select></label>',
    '<label>Search <input id="f-search" type="search" placeholder="title, detail, file, run..."></label>',
    `<output id="shown" class="muted">${findingSource(report).length} of ${findingSource(report).length} shown</output>`,
    '</form>\n',
    '<table id="findings-table">\n<thead><tr><th>severity</th><th>type</th><th>action</th><th>finding</th><th>file</th><th class="num">seen</th><th>runs</th></tr></thead>\n<tbody></tbody>\n</table>\n',
    '<p><button type="button" id="more" hidden>Show more</button></p>\n',
    '<noscript><p>The findings table is built by this page&rsquo;s script; without it, use <code>ralph report --format md</code> or <code>--format json</code>.</p></noscript>\n',
  ];
  if (findingSource(report).length === 0) parts.push('<p>No findings.</p>\n');

  if (s.invalid > 0) {
    parts.push(`<h2>Invalid observations (${s.invalid})</h2>\n<table id="invalid-table">\n<thead><tr><th>run</th><th>plan</th><th class="num">iteration</th><th>why</th><th>raw text</th></tr></thead>\n<tbody>\n`);
    for (const inv of report.invalid) {
      parts.push(
        `<tr><td>${t(inv.run)}</td><td>${t(inv.plan)}</td><td class="num">${inv.iteration ?? ''}</td><td>${t(inv.error)}</td>`,
        `<td><details><summary>${t(inv.source)}</summary><pre>${t(inv.raw)}</pre></details></td></tr>\n`,
      );
    }
    parts.push('</tbody>\n</table>\n');
    if (s.invalid > report.invalid.length) parts.push(`<p class="muted">&hellip;and ${s.invalid - report.invalid.length} more.</p>\n`);
  }
  if (s.brokenLines > 0 || report.problems.length > 0) {
    parts.push('<h2>Unreadable input</h2>\n<ul>\n');
    for (const b of report.brokenLines) parts.push(`<li>${t(`${b.file}:${b.line}`)}: ${t(b.reason)}</li>\n`);
    if (s.brokenLines > report.brokenLines.length) parts.push(`<li>&hellip;and ${s.brokenLines - report.brokenLines.length} more lines</li>\n`);
    for (const p of report.problems) parts.push(`<li>${t(p.file)}: ${t(p.message)}</li>\n`);
    parts.push('</ul>\n');
  }

  parts.push(`<h2>Run outcomes</h2>\n<p class="muted">${t(outcomeLine(report) || 'no runs')} · total cost ${h(formatCost(s.costUsd))}</p>\n`);
  parts.push('<table id="runs-table">\n<thead><tr><th>run</th><th>plan</th><th>outcome</th><th class="num">exit</th><th class="num">iterations</th><th class="num">cost</th><th class="num">findings</th><th>PR</th><th>reason</th></tr></thead>\n<tbody>\n');
  for (const r of report.runs) {
    // Checked again here: a Report can come from anywhere, and a link must never be javascript:.
    const url = safeHttpsUrl(r.prUrl);
    const pr = url !== null ? `<a href="${h(url)}" rel="noopener noreferrer" target="_blank">PR</a>` : '&mdash;';
    parts.push(
      `<tr><td title="${t(r.dir)}">${t(r.run)}</td><td>${(r.plan === null ? '&mdash;' : t(r.plan))}</td><td>${t(runOutcome(r))}</td><td class="num">${r.exitCode ?? '&mdash;'}</td>`,
      `<td class="num">${r.iterations ?? '&mdash;'}</td><td class="num">${r.costUsd === null ? '&mdash;' : h(formatCost(r.costUsd))}</td><td class="num">${r.findings}</td><td>${pr}</td><td>${t(r.reason ?? '')}</td></tr>\n`,
    );
  }
  parts.push('</tbody>\n</table>\n');
  // The findings go first and the lists they index come after them: one pass names the types,
  // actions, plans and runs as it writes the rows (the page reads the block as a whole).
  const table = tableData(report);
  parts.push('<script type="application/json" id="report-data">{"findings":[');
  yield parts.join('');
  const findings = findingSource(report);
  if (findings.fields !== undefined) {
    yield* rowsAsBytes(findings, findings.fields, table);
  } else {
    for (let i = 0; i < findings.length; i += FINDINGS_PER_CHUNK) {
      if (i > 0) yield ',';
      // Joined into one flat string, which the escaping then reads once.
      yield scriptSafe(findings.slice(i, i + FINDINGS_PER_CHUNK).map(table.row).join(','));
    }
  }
  yield `],${jsonForScript(table.head()).slice(1)}</script>\n`;
  yield `<script>${REPORT_SCRIPT}</script>\n</body>\n</html>\n`;
}

/** Rows the page adds at a time (and at first). */
export const HTML_PAGE_ROWS = 500;
/** Values per finding in the `findings` array of the data block. */
const WIDTH = 9;

/**
 * The data block behind the findings table. One flat array, WIDTH values per finding:
 * severity, type and action (indexes into `severities`, `types`, `actions`), title, detail, file
 * (or null), count, runs and plans (an index into `runs` / `plans`, or an array of them).
 * Flat and numeric because serialising 100,000 findings costs per value: no repeated keys, and
 * a run name is written once, not once per finding it appears in. Types, actions, plans and
 * runs are listed in the order the rows first name them; head() lists them once every row is out.
 */
function tableData(report: Report): TableData {
  const s = report.summary;
  const severities = SEVERITIES.filter((sev) => s.bySeverity[sev].distinct > 0);
  const severityIndex = new Map<string, number>(severities.map((v, i) => [v, i]));
  const [types, actions, plans, runs] = [names(), names(), names(), names()];
  // Findings come sorted by severity, type and action, and groups seen in one run or one plan
  // share that list: remembering the last lookup skips nearly all of them.
  const sevId = lastLookup((sev) => severityIndex.get(sev)!);
  const typeId = lastLookup(types.id);
  const actionId = lastLookup(actions.id);
  const planIds = lastListLookup(plans.id);
  const runIds = lastListLookup(runs.id);
  const ids = (severity: string, type: string, action: string) => `${sevId(severity)},${typeId(type)},${actionId(action)}`;
  const runList = (names: readonly string[]) => idsJson(runIds(names));
  const planList = (names: readonly string[]) => idsJson(planIds(names));
  return {
    ids,
    runList,
    planList,
    row: (g) => `${ids(g.severity, g.type, g.action)},${JSON.stringify([g.title, g.detail, g.file, g.count]).slice(1, -1)},${runList(g.runs)},${planList(g.plans)}`,
    head: () => ({ severities, types: types.list, actions: actions.list, plans: plans.list, runs: runs.list, width: WIDTH, page: HTML_PAGE_ROWS }),
  };
}

interface TableData {
  /** A finding's WIDTH values as JSON, without the brackets (not yet safe in a script block). */
  row(g: FindingGroup): string;
  /** Its first three (ids of its severity, type and action), and its last two. Asked for in the
   *  order of the rows and of a row's values: ids are given to names as they are first used. */
  ids(severity: string, type: string, action: string): string;
  runList(runs: readonly string[]): string;
  planList(plans: readonly string[]): string;
  head(): Record<string, unknown>;
}

/**
 * The rows, comma-separated, as UTF-8. A finding whose text holds nothing a script block must
 * escape (plain 'script') is written from a template, its text copied as the bytes it was read
 * as; any other is made an object, serialised and escaped.
 */
function* rowsAsBytes(source: FindingSource, f: FindingFields, table: TableData): Generator<Uint8Array> {
  const out = f.output();
  // What many rows share is kept as pieces (see ByteOutput.piece): a kind of finding's ids, each
  // run and plan list's ids, the text between values. Each is made the first time it is needed,
  // in the order the rows need them, so names are numbered as they would be row by row.
  const kinds = new Map<number, Piece>();
  const runLists = new Map<readonly string[], Piece>();
  const planLists = new Map<readonly string[], Piece>();
  const comma = out.piece(',');
  const between: TextPieces = { afterTitle: out.piece('","'), beforeFile: out.piece('","'), afterFile: out.piece('",'), noFile: out.piece('",null,') };
  for (let j = 0; j < source.length; j++) {
    if (j > 0) out.put(comma);
    if (f.plain(j) !== 'script') {
      out.utf8(scriptSafe(table.row(source.get(j))));
    } else {
      out.put(pieceOf(out, kinds, f.kind(j), () => `${table.ids(source.severity(j), f.type(j), f.action(j))},"`));
      writeTexts(out, f, j, between);
      out.ascii(`${source.count(j)},`);
      const runs = f.runs(j);
      out.put(pieceOf(out, runLists, runs, () => `${table.runList(runs)},`));
      const plans = f.plans(j);
      out.put(pieceOf(out, planLists, plans, () => table.planList(plans)));
    }
    if (out.length >= BYTES_PER_CHUNK) yield out.take();
  }
  if (out.length > 0) yield out.take();
}

function idsJson(ids: number | number[]): string {
  return typeof ids === 'number' ? `${ids}` : JSON.stringify(ids);
}

/** Names numbered in the order they are first asked for. */
function names(): { list: string[]; id: (name: string) => number } {
  const list: string[] = [];
  const ids = new Map<string, number>();
  return {
    list,
    id(name) {
      let id = ids.get(name);
      if (id === undefined) {
        id = list.length;
        list.push(name);
        ids.set(name, id);
      }
      return id;
    },
  };
}

function lastLookup(id: (key: string) => number): (key: string) => number {
  let last = '';
  let value = -1;
  return (key) => {
    if (key !== last || value === -1) {
      last = key;
      value = id(key);
    }
    return value;
  };
}

/** A list of names as ids: one id when it holds one name, else an array of them. */
function lastListLookup(id: (name: string) => number): (names: readonly string[]) => number | number[] {
  let last: readonly string[] | null = null;
  let value: number | number[] = [];
  return (names) => {
    if (names !== last) {
      last = names;
      value = names.length === 1 ? id(names[0]!) : names.map(id);
    }
    return value;
  };
}


/** Distinct findings per severity as horizontal bars; presentation attributes only (no style=). */
function severityChart(report: Report): string {
  const counts = SEVERITIES.map((sev) => report.summary.bySeverity[sev]);
  const max = Math.max(1, ...counts.map((c) => c.distinct));
  const rowH = 24;
  const labelW = 70;
  const barW = 360;
  const height = SEVERITIES.length * rowH + 4;
  const bars = SEVERITIES.map((sev, i) => {
    const c = report.summary.bySeverity[sev];
    const w = c.distinct === 0 ? 0 : Math.max(2, Math.round((c.distinct / max) * barW));
    const y = i * rowH + 2;
    return (
      `<g data-severity="${sev}"><text x="0" y="${y + 15}">${sev}</text>` +
      `<rect x="${labelW}" y="${y}" width="${w}" height="${rowH - 6}" rx="2" fill="${BAR_COLOURS[sev]}"></rect>` +
      `<text x="${labelW + w + 6}" y="${y + 15}">${c.distinct}${c.occurrences !== c.distinct ? ` (${c.occurrences} seen)` : ''}</text></g>`
    );
  }).join('');
  return (
    `<svg id="severity-chart" xmlns="http://www.w3.org/2000/svg" width="${labelW + barW + 120}" height="${height}" role="img" aria-label="findings by severity">` +
    `<title>Findings by severity</title>${bars}</svg>\n`
  );
}
