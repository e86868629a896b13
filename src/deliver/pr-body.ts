// A pull request's title and body, written by ralph from the run's facts (docs/deliver.md "The
// pull request"), never by the agent: the agent's words (findings, reasons, task names, evidence)
// appear only escaped, so they cannot link, mention, embed HTML or close a code block.
import { escapeMarkdown, markdownFence, stripControls } from '../util/markdown-escape.js';
import { formatDuration } from '../util/duration.js';
import type { RunFacts } from './run-facts.js';

/** Marks a body as ralph's for this plan: how a person (or a later tool) tells ralph's pull requests apart. */
export function planMarker(planId: string): string {
  return `<!-- ralph:plan ${encodeURIComponent(planId)} -->`;
}

/** GitHub refuses bodies over 65,536 characters; findings are cut well before that. */
const MAX_FINDINGS = 50;
const MAX_EVIDENCE = 4_000;
const MAX_BODY = 60_000;

const esc = (text: string, max = 500) => escapeMarkdown(text.length > max ? `${text.slice(0, max)}…` : text);

export function prTitle(facts: RunFacts): string {
  const what = (facts.objective ?? '').split('\n').map((l) => l.trim()).find(Boolean) ?? facts.planId;
  const title = stripControls(`ralph: ${facts.planId}: ${what}`).replace(/\s+/g, ' ').trim();
  return title.length > 120 ? `${title.slice(0, 119)}…` : title;
}

function verifyRow(v: RunFacts['verify'][number]): string {
  const r = v.ran;
  const result = r === null ? 'not run' : r.timedOut ? '**timed out**' : r.exitCode === 0 ? 'passed' : `**failed** (exit ${r.exitCode ?? 'none'})`;
  const took = r === null ? '-' : formatDuration(Math.max(r.durationMs, 0)) || `${r.durationMs} ms`;
  return `| ${esc(v.command, 300)} | ${result} | ${took} |`;
}

export function prBody(facts: RunFacts, o: { draft: boolean; branch: string; commit: string | null }): string {
  const lines: string[] = [planMarker(facts.planId), ''];
  const accepted = facts.outcome === 'complete';
  lines.push(
    accepted
      ? `ralph ran the plan **${esc(facts.planId, 200)}** and accepted it: its summary and verify commands passed.`
      : `ralph ran the plan **${esc(facts.planId, 200)}** and it ended **${esc(facts.outcome, 40)}**: this draft shows how far it got.`,
    '',
  );
  if (!accepted) {
    lines.push('### Why this is a draft', '', `- Outcome: ${esc(facts.outcome, 40)}`, `- Reason: ${esc(facts.reason, 1_000) || 'none given'}`, '');
    const blockers = facts.findings.filter((f) => f.type === 'blocker');
    if (blockers.length) lines.push("The blocker's evidence (the agent's observations):", '', ...blockers.slice(0, 10).map((f) => `- ${esc(f.title, 300)}`), '');
    if (facts.blocked) lines.push("The blocker's evidence (BLOCKED.md):", '', markdownFence(facts.blocked.slice(0, MAX_EVIDENCE), 'text'), '');
  }
  if (facts.objective) lines.push('### Objective', '', ...facts.objective.split('\n').map((l) => `> ${esc(l, 1_000)}`), '');
  if (facts.tasks.length) {
    lines.push('### Tasks', '', '| Task | Status |', '| --- | --- |');
    for (const t of facts.tasks) lines.push(`| ${esc(t.name, 200)} | ${t.status === null ? 'not reported' : esc(t.status, 40)} |`);
    lines.push('');
  }
  lines.push('### Verify commands', '');
  if (facts.verify.length) lines.push('| Command | Result | Duration |', '| --- | --- | --- |', ...facts.verify.map(verifyRow), '');
  else lines.push('The plan has no verify commands.', '');
  lines.push('### Findings', '');
  if (facts.findings.length === 0) lines.push('None reported.', '');
  else {
    for (const f of facts.findings.slice(0, MAX_FINDINGS)) {
      lines.push(`- **${esc(f.severity, 20)}** ${esc(f.type, 20)}: ${esc(f.title, 300)}${f.file ? ` (${esc(f.file, 200)})` : ''}`);
    }
    if (facts.findings.length > MAX_FINDINGS) lines.push(`- … and ${facts.findings.length - MAX_FINDINGS} more in the run's findings.jsonl`);
    lines.push('');
  }
  lines.push(
    '### The run',
    '',
    `- Iterations: ${facts.iterations ?? 'unknown'}`,
    `- Time: ${facts.durationMs === null ? 'unknown' : formatDuration(facts.durationMs) || '0s'}`,
    `- Cost: ${facts.costUsd === null ? 'not reported' : `$${facts.costUsd.toFixed(4)}`}`,
    `- Branch: ${esc(o.branch, 300)}${o.commit ? ` at ${o.commit.slice(0, 12)}` : ''}`,
    `- Run files: ${esc(facts.runDir, 500)} (on the machine that ran it)`,
    '',
    '<sub>Written by ralph from the run\'s files; the agent did not write this description.</sub>',
  );
  const body = lines.join('\n');
  return body.length > MAX_BODY ? `${body.slice(0, MAX_BODY)}\n\n… (cut: see the run's files)` : body;
}
