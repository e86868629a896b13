// One self-contained html file: no external resources, a strict CSP, agent text escaped as HTML
// entities everywhere, and the findings as data in an escaped JSON block, from which the page's
// own script builds the table (see html-assets.ts).
import { SEVERITIES, type Severity } from '../../contract.js';
import { prLabel, strictUrl } from '../../util/markdown-escape.js';
import { escapeHtml as h, jsonForScript, scriptSafe, stripControls } from './escape.js';
import { checksLine, filterLine, formatCost, outcomeLine, plural, receiptCost, runOutcome, refusalsLine, seconds, tokensLine } from './format-common.js';
import { CONTENT_SECURITY_POLICY, REPORT_SCRIPT, REPORT_STYLE } from './html-assets.js';
import { FINDINGS_PER_CHUNK } from './render-json.js';
import type { FindingGroup, Report, RunSummary } from './types.js';

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
  return Array.from(htmlChunks(report)).join('');
}

/** The page in pieces; the findings data block is serialised a slice at a time. */
export function* htmlChunks(report: Report): Generator<string> {
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
    `<output id="shown" class="muted">${report.findings.length} of ${report.findings.length} shown</output>`,
    '</form>\n',
    '<table id="findings-table">\n<thead><tr><th>severity</th><th>type</th><th>action</th><th>finding</th><th>file</th><th class="num">seen</th><th>runs</th></tr></thead>\n<tbody></tbody>\n</table>\n',
    '<p><button type="button" id="more" hidden>Show more</button></p>\n',
    '<noscript><p>The findings table is built by this page&rsquo;s script; without it, use <code>ralph report --format md</code> or <code>--format json</code>.</p></noscript>\n',
  ];
  if (report.findings.length === 0) parts.push('<p>No findings.</p>\n');

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
    const url = strictUrl(r.prUrl);
    const pr = url !== null ? `<a href="${h(url.href)}" rel="noopener noreferrer" target="_blank">${h(prLabel(url))}</a>` : '&mdash;';
    parts.push(
      `<tr><td title="${t(r.dir)}">${t(r.run)}</td><td>${(r.plan === null ? '&mdash;' : t(r.plan))}</td><td>${t(runOutcome(r))}</td><td class="num">${r.exitCode ?? '&mdash;'}</td>`,
      `<td class="num">${r.iterations ?? '&mdash;'}</td><td class="num">${r.costUsd === null ? '&mdash;' : h(formatCost(r.costUsd))}</td><td class="num">${r.findings}</td><td>${pr}</td><td>${t(r.reason ?? '')}</td></tr>\n`,
    );
  }
  parts.push('</tbody>\n</table>\n');
  const refused = report.runs.filter((r) => (r.sandbox?.denied ?? 0) > 0);
  if (refused.length > 0) {
    parts.push('<h2>Sandbox refusals</h2>\n<table id="sandbox-table">\n<thead><tr><th>run</th><th>plan</th><th class="num">refused</th><th>what</th></tr></thead>\n<tbody>\n');
    for (const r of refused) {
      parts.push(`<tr><td title="${t(r.dir)}">${t(r.run)}</td><td>${r.plan === null ? '&mdash;' : t(r.plan)}</td><td class="num">${r.sandbox!.denied}</td><td>${t(refusalsLine(r.sandbox!.refusals))}</td></tr>\n`);
    }
    parts.push('</tbody>\n</table>\n');
  }
  parts.push(...receiptsSection(report));
  // The findings go first and the lists they index come after them: one pass names the types,
  // actions, plans and runs as it writes the rows (the page reads the block as a whole).
  const table = tableData(report);
  parts.push('<script type="application/json" id="report-data">{"findings":[');
  yield parts.join('');
  const findings = report.findings;
  for (let i = 0; i < findings.length; i += FINDINGS_PER_CHUNK) {
    const values: unknown[] = [];
    for (let j = i; j < Math.min(i + FINDINGS_PER_CHUNK, findings.length); j++) table.row(findings[j]!, values);
    yield `${i > 0 ? ',' : ''}${scriptSafe(JSON.stringify(values).slice(1, -1))}`;
  }
  yield `],${jsonForScript(table.head()).slice(1)}</script>\n`;
  yield `<script>${REPORT_SCRIPT}</script>\n</body>\n</html>\n`;
}

/** Per run, folded: a table of its iterations' receipts and one of its tasks' (docs/files.md#receipts). */
function receiptsSection(report: Report): string[] {
  const runs = report.runs.filter((r) => r.iterationReceipts !== undefined || r.taskReceipts !== undefined);
  if (runs.length === 0) return [];
  const parts = ['<h2>Receipts</h2>\n<p class="muted">A cost marked <abbr title="estimated from the price table">(est.)</abbr> is an estimate; tokens are input / output / cache read / cache write.</p>\n'];
  for (const r of runs) parts.push(runReceipts(r));
  return parts;
}

const EST = ' <abbr title="estimated from the price table">(est.)</abbr>';

function costCell(usd: number | null, estimated: boolean): string {
  return h(receiptCost(usd, false)) + (usd !== null && estimated ? EST : '');
}

function runReceipts(r: RunSummary): string {
  const receipts = r.iterationReceipts ?? [];
  const tasks = r.taskReceipts ?? [];
  const parts = [`<details class="receipts"><summary>${t(r.run)} &middot; ${r.plan === null ? '&mdash;' : t(r.plan)} &middot; ${t(runOutcome(r))} &middot; ${h(plural(receipts.length, 'receipt'))}</summary>\n`];
  if (receipts.length > 0) {
    parts.push('<table class="iterations">\n<thead><tr><th class="num">iteration</th><th class="num">time</th><th>tokens</th><th class="num">cost</th><th>decision</th><th>checks</th><th>rejection</th></tr></thead>\n<tbody>\n');
    for (const x of receipts) {
      parts.push(
        `<tr><td class="num">${x.iteration}</td><td class="num">${h(seconds(x.durationMs))}</td><td>${h(tokensLine(x.tokens))}</td><td class="num">${costCell(x.costUsd, x.costEstimated)}</td>`,
        `<td>${t(x.decision)}</td><td>${t(checksLine(x.checks)) || '&mdash;'}</td><td>${x.rejection === null ? '&mdash;' : `<div class="detail">${t(x.rejection)}</div>`}</td></tr>\n`,
      );
    }
    parts.push('</tbody>\n</table>\n');
  }
  if (tasks.length > 0) {
    parts.push('<table class="tasks">\n<thead><tr><th>task</th><th>state</th><th class="num">first passed in iteration</th><th class="num">iterations to pass</th><th class="num">cost to pass</th></tr></thead>\n<tbody>\n');
    for (const x of tasks) {
      parts.push(
        `<tr><td>${t(x.name)}</td><td>${t(x.status)}${x.regressed ? ' (regressed)' : ''}</td><td class="num">${x.firstPassedIteration ?? '&mdash;'}</td><td class="num">${x.iterations ?? '&mdash;'}</td>`,
        `<td class="num">${x.iterations === null ? '&mdash;' : costCell(x.costUsd, x.costEstimated)}</td></tr>\n`,
      );
    }
    parts.push('</tbody>\n</table>\n');
  }
  parts.push('</details>\n');
  return parts.join('');
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
function tableData(report: Report): { row(g: FindingGroup, values: unknown[]): void; head(): Record<string, unknown> } {
  const s = report.summary;
  const severities: string[] = SEVERITIES.filter((sev) => s.bySeverity[sev].distinct > 0);
  const [types, actions, plans, runs] = [names(), names(), names(), names()];
  // One name as its id, several (or none) as an array of ids.
  const ids = (id: (name: string) => number, list: readonly string[]): number | number[] => (list.length === 1 ? id(list[0]!) : list.map(id));
  return {
    // A finding's WIDTH values, appended to `values` (flatMap over per-row arrays cost three
    // times as much). Evaluated in order: names are numbered as the rows first use them.
    row: (g, values) => {
      values.push(severities.indexOf(g.severity), types.id(g.type), actions.id(g.action), g.title, g.detail, g.file, g.count, ids(runs.id, g.runs), ids(plans.id, g.plans));
    },
    head: () => ({ severities, types: types.list, actions: actions.list, plans: plans.list, runs: runs.list, width: WIDTH, page: HTML_PAGE_ROWS }),
  };
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
