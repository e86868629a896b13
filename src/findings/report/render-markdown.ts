// Markdown that fits a PR comment: summary counts first, then findings by severity, type and
// action, then invalid observations, then run outcomes. Agent text only ever lands in a table
// cell or a fence, escaped so it cannot leave it.
//
// "Fits" is literal: the whole text stays under MD_MAX_CHARS (GitHub refuses comments over
// 65,536 characters). Counts are always complete; the lists show what is most worth reading
// first (findings by severity, then how often seen; runs that did not complete) until their share
// of the budget is used, and then say how many more there are and where to see them all.
import { SEVERITIES } from '../../contract.js';
import { markdownPrLink } from '../../util/markdown-escape.js';
import { escapeMarkdown as md, markdownFence, truncate } from './escape.js';
import { checksLine, filterLine, formatCost, outcomeLine, plural, receiptCost, runOutcome, refusalsLine, seconds, tokensLine } from './format-common.js';
import type { FindingGroup, Report, RunSummary } from './types.js';

/** GitHub's comment limit is 65,536 characters; the rest is room for a note around the report. */
export const MD_MAX_CHARS = 60_000;
/** Detail is cut in Markdown to keep a PR comment readable; html and json carry it whole. */
export const MD_DETAIL_CHARS = 500;
const MD_TITLE_CHARS = 300;
const MD_FILE_CHARS = 200;
const MD_RUNS_LISTED = 5;
const MD_RAW_CHARS = 500;
// Caps on the sections after the findings, so findings keep most of the room.
const INVALID_CHARS = 8_000;
const BROKEN_CHARS = 3_000;
const PROBLEMS_CHARS = 2_000;
const SANDBOX_CHARS = 4_000;
const RECEIPTS_CHARS = 12_000;
/** Iterations listed per run (the last ones); html and json list them all. */
export const MD_RECEIPT_ROWS = 20;
/** Room the run table keeps for itself while findings are listed; it then gets all that is left. */
const RUNS_RESERVED_CHARS = 10_000;

export interface MarkdownOptions {
  /** Total size of the text, in characters (default MD_MAX_CHARS). */
  maxChars?: number;
}

const SEE_ALL = '`ralph report --format html` or `--format json` lists them all';

export function renderMarkdown(report: Report, options: MarkdownOptions = {}): string {
  const maxChars = options.maxChars ?? MD_MAX_CHARS;
  const s = report.summary;
  const head: string[] = ['## ralph observations report', ''];
  head.push(
    `**${plural(s.distinct, 'finding')}** (${plural(s.occurrences, 'occurrence')}) across **${plural(s.runs, 'run')}**` +
      (s.invalid > 0 ? ` · ${plural(s.invalid, 'invalid observation')}` : '') +
      (s.brokenLines > 0 ? ` · ${plural(s.brokenLines, 'unreadable log line')} skipped` : ''),
  );
  const filters = filterLine(report);
  if (filters !== '') head.push('', `Filtered: ${md(truncate(filters, 1_000))}`);
  head.push('', '| severity | findings | occurrences |', '|---|---:|---:|');
  for (const sev of SEVERITIES) head.push(`| ${sev} | ${s.bySeverity[sev].distinct} | ${s.bySeverity[sev].occurrences} |`);
  if (s.runs > 0) head.push('', `Runs: ${md(outcomeLine(report))} · cost ${formatCost(s.costUsd)}`);
  head.push('', '### Findings', '');

  // The sections after the findings are rendered first (each within its cap) so the findings can
  // have all the room that is left.
  const middle = [...invalidSection(report), ...brokenSection(report), ...problemsSection(report), ...sandboxSection(report), ...receiptsSection(report)];
  const runsFull = runsSection(report, Infinity);
  const fixed = size(head) + size(middle);
  const findings = findingsSection(report, maxChars - fixed - Math.min(size(runsFull), RUNS_RESERVED_CHARS));
  const runs = runsSection(report, maxChars - fixed - size(findings));
  return [...head, ...findings, ...middle, ...runs, ''].join('\n');
}

/** Characters the lines take once joined with line breaks. */
function size(lines: readonly string[]): number {
  let n = 0;
  for (const l of lines) n += l.length + 1;
  return n;
}

function findingsSection(report: Report, budget: number): string[] {
  const all = report.findings;
  if (all.length === 0) return ['No findings.'];
  const s = report.summary;
  const byInterest = mostWorthReading(all);
  const moreNote = (n: number, occurrences: number) =>
    ['', `...and ${plural(n, 'more finding')} (${plural(occurrences, 'occurrence')}) not listed here: ${SEE_ALL}.`];
  const room = budget - size(moreNote(all.length, s.occurrences));

  const chosen = new Uint8Array(all.length);
  const sections = new Set<string>();
  const severities = new Set<string>();
  let used = 0;
  let listed = 0;
  let listedOccurrences = 0;
  for (const i of byInterest) {
    const g = all[i]!;
    const section = `${g.severity}\u0000${g.type}\u0000${g.action}`;
    let cost = findingRow(g).length + 1;
    if (!sections.has(section)) cost += sectionHeader(g).join('\n').length + 2;
    if (!severities.has(g.severity)) cost += g.severity.length + 8;
    // Stop at the first finding that does not fit: never skip a more important one for a shorter.
    if (used + cost > room) break;
    used += cost;
    chosen[i] = 1;
    sections.add(section);
    severities.add(g.severity);
    listed += 1;
    listedOccurrences += g.count;
  }
  const out: string[] = [];
  let severity = '';
  let section = '';
  for (let i = 0; i < all.length; i++) {
    if (chosen[i] === 0) continue;
    const g = all[i]!;
    if (g.severity !== severity) {
      if (out.length > 0) out.push('');
      severity = g.severity;
      section = '';
      out.push(`#### ${g.severity}`, '');
    }
    const here = `${g.type} · ${g.action}`;
    if (here !== section) {
      if (section !== '') out.push('');
      section = here;
      out.push(...sectionHeader(g));
    }
    out.push(findingRow(g));
  }
  if (listed < all.length) out.push(...moreNote(all.length - listed, s.occurrences - listedOccurrences));
  return out;
}

/**
 * Indexes of the findings by severity, then most seen, then the report's own order. The report
 * is already by severity first, and nearly every finding is seen once: only those seen more than
 * once need sorting.
 */
function mostWorthReading(all: readonly FindingGroup[]): number[] {
  const out: number[] = [];
  for (let from = 0, to = 0; from < all.length; from = to) {
    const severity = all[from]!.severity;
    const repeated: number[] = [];
    const once: number[] = [];
    for (to = from; to < all.length && all[to]!.severity === severity; to++) (all[to]!.count > 1 ? repeated : once).push(to);
    // Stable: equal counts keep the report's order.
    repeated.sort((a, b) => all[b]!.count - all[a]!.count);
    for (const i of repeated) out.push(i);
    for (const i of once) out.push(i);
  }
  return out;
}

function sectionHeader(g: FindingGroup): string[] {
  return [`**${g.type}** · ${g.action}`, '', '| title | file | seen | runs | detail |', '|---|---|---:|---|---|'];
}

function findingRow(g: FindingGroup): string {
  const runs = g.runs.slice(0, MD_RUNS_LISTED).map((r) => truncate(r, 100)).join(', ') + (g.runs.length > MD_RUNS_LISTED ? ` +${g.runs.length - MD_RUNS_LISTED} more` : '');
  return `| ${md(truncate(g.title, MD_TITLE_CHARS))} | ${md(truncate(g.file ?? '', MD_FILE_CHARS))} | ${g.count}× | ${md(runs)} | ${md(truncate(g.detail, MD_DETAIL_CHARS))} |`;
}

/** As many entries as fit in `budget` characters (at least the heading), then "...and N more". */
function listWithin<T>(heading: string[], items: readonly T[], total: number, budget: number, render: (item: T) => string[], more: (n: number) => string): string[] {
  const out = [...heading];
  let used = size(out);
  let listed = 0;
  const noteRoom = more(total).length + 2;
  for (const item of items) {
    const lines = render(item);
    const cost = size(lines);
    const last = listed === items.length - 1 && total === items.length;
    if (used + cost + (last ? 0 : noteRoom) > budget) break;
    out.push(...lines);
    used += cost;
    listed += 1;
  }
  if (total > listed) out.push('', more(total - listed));
  return out;
}

function invalidSection(report: Report): string[] {
  const s = report.summary;
  if (s.invalid === 0) return [];
  return listWithin(
    ['', `### Invalid observations (${s.invalid})`, ''],
    report.invalid,
    s.invalid,
    INVALID_CHARS,
    (inv) => {
      const where = `${inv.run}${inv.plan ? `, plan ${inv.plan}` : ''}${inv.iteration !== null ? `, iteration ${inv.iteration}` : ''}`;
      return [`**${md(truncate(where, 300))}**: ${md(truncate(inv.error, 300))}`, '', markdownFence(truncate(inv.raw, MD_RAW_CHARS), 'xml'), ''];
    },
    (n) => `...and ${n} more (see the json or html report).`,
  );
}

function brokenSection(report: Report): string[] {
  const s = report.summary;
  if (s.brokenLines === 0) return [];
  return listWithin(
    ['', `### Unreadable log lines (${s.brokenLines})`, '', '| where | why |', '|---|---|'],
    report.brokenLines,
    s.brokenLines,
    BROKEN_CHARS,
    (b) => [`| ${md(truncate(`${b.file}:${b.line}`, 300))} | ${md(truncate(b.reason, 300))} |`],
    (n) => `...and ${n} more.`,
  );
}

function problemsSection(report: Report): string[] {
  if (report.problems.length === 0) return [];
  return listWithin(
    ['', '### Problems', ''],
    report.problems,
    report.problems.length,
    PROBLEMS_CHARS,
    (p) => [`- ${md(truncate(p.file, 300))}: ${md(truncate(p.message, 300))}`],
    (n) => `...and ${n} more (see the json report).`,
  );
}

/** What the sandbox refused, run by run (docs/sandbox.md): what each agent tried to get out to. */
function sandboxSection(report: Report): string[] {
  const runs = report.runs.filter((r) => (r.sandbox?.denied ?? 0) > 0);
  if (runs.length === 0) return [];
  return listWithin(
    ['', '### Sandbox refusals', '', '| run | plan | refused | what |', '|---|---|---:|---|'],
    runs,
    runs.length,
    SANDBOX_CHARS,
    (r) => [`| ${md(truncate(r.run, 100))} | ${md(truncate(r.plan ?? '-', 100))} | ${r.sandbox!.denied} | ${md(truncate(refusalsLine(r.sandbox!.refusals), 400))} |`],
    (n) => `...and ${plural(n, 'more run')}: ${SEE_ALL}.`,
  );
}

/** Runs that did not complete come first: those are the ones a morning review is for. */
function notCompleteFirst(runs: readonly RunSummary[]): RunSummary[] {
  return [...runs.filter((r) => r.outcome !== 'complete'), ...runs.filter((r) => r.outcome === 'complete')];
}

/** What each iteration took and what came of it, and what each task took to pass (docs/files.md#receipts). */
function receiptsSection(report: Report): string[] {
  const runs = notCompleteFirst(report.runs).filter((r) => r.iterationReceipts !== undefined || r.taskReceipts !== undefined);
  if (runs.length === 0) return [];
  return listWithin(
    ['', '### Receipts', '', 'A cost marked (est.) is estimated from the price table; tokens are input / output / cache read / cache write.', ''],
    runs,
    runs.length,
    RECEIPTS_CHARS,
    receiptLines,
    (n) => `...and ${plural(n, 'more run')} with receipts: ${SEE_ALL}.`,
  );
}

function receiptLines(r: RunSummary): string[] {
  const out = [`**${md(truncate(r.run, 100))}** · ${md(truncate(r.plan ?? '-', 100))} · ${md(runOutcome(r))}`, ''];
  const receipts = r.iterationReceipts ?? [];
  if (receipts.length > 0) {
    const hidden = receipts.length - MD_RECEIPT_ROWS;
    out.push('| iteration | time | tokens | cost | decision | checks | rejection |', '|---:|---:|---|---:|---|---|---|');
    for (const x of receipts.slice(Math.max(0, hidden))) {
      out.push(`| ${x.iteration} | ${seconds(x.durationMs)} | ${tokensLine(x.tokens)} | ${receiptCost(x.costUsd, x.costEstimated)} | ${md(x.decision)} | ${md(truncate(checksLine(x.checks), 200)) || '-'} | ${md(truncate(x.rejection ?? '', 150)) || '-'} |`);
    }
    if (hidden > 0) out.push('', `...${plural(hidden, 'earlier iteration')} not listed: ${SEE_ALL}.`);
    out.push('');
  }
  const tasks = r.taskReceipts ?? [];
  if (tasks.length > 0) {
    out.push('| task | state | first passed in iteration | iterations to pass | cost to pass |', '|---|---|---:|---:|---:|');
    for (const t of tasks) {
      out.push(`| ${md(truncate(t.name, 100))} | ${md(t.status)}${t.regressed ? ' (regressed)' : ''} | ${t.firstPassedIteration ?? '-'} | ${t.iterations ?? '-'} | ${t.iterations === null ? '-' : receiptCost(t.costUsd, t.costEstimated)} |`);
    }
    out.push('');
  }
  return out;
}

function runsSection(report: Report, budget: number): string[] {
  if (report.runs.length === 0) return ['', '### Run outcomes', '', 'No runs.'];
  const runs = notCompleteFirst(report.runs);
  return listWithin(
    ['', '### Run outcomes', '', '| run | plan | outcome | exit | iterations | cost | findings | PR | reason |', '|---|---|---|---:|---:|---:|---:|---|---|'],
    runs,
    runs.length,
    budget,
    (r) => [runRow(r)],
    (n) => `...and ${plural(n, 'more run')}: ${SEE_ALL}.`,
  );
}

function runRow(r: RunSummary): string {
  // Only a strict URL is a link; anything else (a Report can come from anywhere) is none.
  const pr = markdownPrLink(r.prUrl) ?? '-';
  return `| ${md(truncate(r.run, 100))} | ${md(truncate(r.plan ?? '-', 100))} | ${md(runOutcome(r))} | ${r.exitCode ?? '-'} | ${r.iterations ?? '-'} | ${formatCost(r.costUsd)} | ${r.findings} | ${pr} | ${md(truncate(r.reason ?? '', 200))} |`;
}
