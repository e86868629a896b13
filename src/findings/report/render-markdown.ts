// Markdown that fits a PR comment: summary counts first, then findings by severity, type and
// action, then invalid observations, then run outcomes. Agent text only ever lands in a table
// cell or a fence, escaped so it cannot leave it.
import { SEVERITIES } from '../../contract.js';
import { escapeMarkdown as md, markdownFence, truncate } from './escape.js';
import { filterLine, formatCost, outcomeLine, plural, runOutcome } from './format-common.js';
import type { FindingGroup, Report } from './types.js';

/** Detail is cut in Markdown to keep a PR comment readable; html and json carry it whole. */
export const MD_DETAIL_CHARS = 500;
const MD_RUNS_LISTED = 5;
const MD_INVALID_LISTED = 50;
const MD_RAW_CHARS = 1_000;

export function renderMarkdown(report: Report): string {
  const out: string[] = [];
  const s = report.summary;
  out.push('## ralph observations report', '');
  out.push(
    `**${plural(s.distinct, 'finding')}** (${plural(s.occurrences, 'occurrence')}) across **${plural(s.runs, 'run')}**` +
      (s.invalid > 0 ? ` · ${plural(s.invalid, 'invalid observation')}` : '') +
      (s.brokenLines > 0 ? ` · ${plural(s.brokenLines, 'unreadable log line')} skipped` : ''),
  );
  const filters = filterLine(report);
  if (filters !== '') out.push('', `Filtered: ${md(filters)}`);
  out.push('', '| severity | findings | occurrences |', '|---|---:|---:|');
  for (const sev of SEVERITIES) out.push(`| ${sev} | ${s.bySeverity[sev].distinct} | ${s.bySeverity[sev].occurrences} |`);
  if (s.runs > 0) out.push('', `Runs: ${md(outcomeLine(report))} · cost ${formatCost(s.costUsd)}`);

  out.push('', '### Findings', '');
  if (report.findings.length === 0) out.push('No findings.');
  renderGroups(report.findings, out);

  while (out[out.length - 1] === '') out.pop();
  if (s.invalid > 0) renderInvalid(report, out);
  if (s.brokenLines > 0) {
    out.push('', `### Unreadable log lines (${s.brokenLines})`, '', '| where | why |', '|---|---|');
    for (const b of report.brokenLines) out.push(`| ${md(`${b.file}:${b.line}`)} | ${md(b.reason)} |`);
    if (s.brokenLines > report.brokenLines.length) out.push('', `...and ${s.brokenLines - report.brokenLines.length} more.`);
  }
  if (report.problems.length > 0) {
    out.push('', '### Problems', '');
    for (const p of report.problems) out.push(`- ${md(p.file)}: ${md(p.message)}`);
  }

  out.push('', '### Run outcomes', '');
  if (report.runs.length === 0) out.push('No runs.');
  else {
    out.push('| run | plan | outcome | exit | iterations | cost | findings | PR | reason |', '|---|---|---|---:|---:|---:|---:|---|---|');
    for (const r of report.runs) {
      const pr = r.prUrl !== null ? `[PR](${r.prUrl.replace(/[()<>\s]/g, encodeURIComponent)})` : '-';
      out.push(
        `| ${md(r.run)} | ${md(r.plan ?? '-')} | ${md(runOutcome(r))} | ${r.exitCode ?? '-'} | ${r.iterations ?? '-'} | ${formatCost(r.costUsd)} | ${r.findings} | ${pr} | ${md(truncate(r.reason ?? '', 200))} |`,
      );
    }
  }
  out.push('');
  return out.join('\n');
}

function renderGroups(groups: FindingGroup[], out: string[]): void {
  let severity = '';
  let section = '';
  for (let i = 0; i < groups.length; i++) {
    const g = groups[i]!;
    if (g.severity !== severity) {
      severity = g.severity;
      section = '';
      out.push(`#### ${g.severity}`, '');
    }
    const here = `${g.type} · ${g.action}`;
    if (here !== section) {
      if (section !== '') out.push('');
      section = here;
      out.push(`**${g.type}** · ${g.action}`, '', '| title | file | seen | runs | detail |', '|---|---|---:|---|---|');
    }
    const runs = g.runs.slice(0, MD_RUNS_LISTED).join(', ') + (g.runs.length > MD_RUNS_LISTED ? ` +${g.runs.length - MD_RUNS_LISTED} more` : '');
    out.push(
      `| ${md(g.title)} | ${md(g.file ?? '')} | ${g.count}× | ${md(runs)} | ${md(truncate(g.detail, MD_DETAIL_CHARS))} |`,
    );
    // A blank line closes the table before the next severity heading.
    const next = groups[i + 1];
    if (next === undefined || next.severity !== g.severity) out.push('');
  }
}

function renderInvalid(report: Report, out: string[]): void {
  const s = report.summary;
  out.push('', `### Invalid observations (${s.invalid})`, '');
  const listed = report.invalid.slice(0, MD_INVALID_LISTED);
  for (const inv of listed) {
    const where = `${inv.run}${inv.plan ? `, plan ${inv.plan}` : ''}${inv.iteration !== null ? `, iteration ${inv.iteration}` : ''}`;
    out.push(`**${md(where)}**: ${md(inv.error)}`, '', markdownFence(truncate(inv.raw, MD_RAW_CHARS), 'xml'), '');
  }
  if (s.invalid > listed.length) out.push(`...and ${s.invalid - listed.length} more (see the json or html report).`, '');
}
