// The landing report (docs/deliver.md#the-landing-report): land-report.md for people, and with
// --json the same facts as one JSON object on stdout. Check output is the checks' own words, in
// fences they cannot close; branch names and reasons are escaped.
import { formatDuration } from '../util/duration.js';
import { escapeMarkdown, markdownFence } from '../util/markdown-escape.js';
import type { CheckSandboxRecord } from './land-sandbox.js';
import type { CheckRecord, LandState } from './land-state.js';

export const LAND_REPORT_FILE = 'land-report.md';

export interface LandReport {
  target: string;
  strategy: 'rebase' | 'merge';
  from: string;
  to: string;
  landed: { id: string; branch: string; commit: string; checks: CheckRecord[]; note?: string; sandbox?: CheckSandboxRecord }[];
  unlanded: { id: string; branch: string; reason: string; checks: CheckRecord[]; sandbox?: CheckSandboxRecord }[];
  /** Not tried: not accepted, not in --order, or left when the landing was interrupted. */
  skipped: { id: string; reason: string }[];
  pushed: { ok: boolean; note: string } | null;
  interrupted: boolean;
}

export function reportOf(state: LandState, to: string, skipped: { id: string; reason: string }[], interrupted: boolean): LandReport {
  const report: LandReport = { target: state.target, strategy: state.strategy, from: state.startedFrom, to, landed: [], unlanded: [], skipped: [...skipped], pushed: state.pushed ?? null, interrupted };
  for (const item of state.items) {
    const sandbox = item.status !== 'pending' && item.sandbox ? { sandbox: item.sandbox } : {};
    if (item.status === 'landed') report.landed.push({ id: item.id, branch: item.branch, commit: item.commit, checks: item.checks, ...(item.note ? { note: item.note } : {}), ...sandbox });
    else if (item.status === 'unlanded') report.unlanded.push({ id: item.id, branch: item.branch, reason: item.reason, checks: item.checks, ...sandbox });
    else report.skipped.push({ id: item.id, reason: 'not reached: the landing was interrupted' });
  }
  return report;
}

function checkLine(c: CheckRecord): string {
  const result = c.timedOut ? 'timed out' : c.exitCode === 0 ? 'passed' : `failed (exit ${c.exitCode ?? 'none'})`;
  return `| ${c.kind} | ${escapeMarkdown(c.command)} | ${result} | ${formatDuration(c.durationMs)} |`;
}

function checksTable(checks: CheckRecord[], sandbox: CheckSandboxRecord | undefined): string[] {
  if (checks.length === 0) return ['No checks ran.', ''];
  return [...sandboxLines(sandbox), '| from | command | result | duration |', '| --- | --- | --- | --- |', ...checks.map(checkLine), ''];
}

const REFUSED = { write: 'write to', read: 'read of', network: 'connection to' } as const;

/** Whether the checks ran sandboxed, and each refusal (its path or host is the check's own words: escaped). */
function sandboxLines(s: CheckSandboxRecord | undefined): string[] {
  if (!s) return [];
  const head = `Checks ran ${s.on ? 'in the sandbox' : 'without a sandbox'}, --sandbox ${escapeMarkdown(s.why)}`;
  if (s.denied === 0) return [`${head}${s.on ? '; it refused nothing' : ''}.`, ''];
  return [`${head}; it refused ${s.denied}:`, '', ...s.refusals.map((r) => `- ${REFUSED[r.what]} ${escapeMarkdown(r.target)}${r.count > 1 ? ` (${r.count} times)` : ''}`), ''];
}

export function renderLandReport(r: LandReport): string {
  const lines = [
    `# Landing on ${escapeMarkdown(r.target)}`,
    '',
    `- Strategy: ${r.strategy}`,
    `- Target: ${r.from.slice(0, 12)} → ${r.to.slice(0, 12)}`,
    `- Landed: ${r.landed.length}, unlanded: ${r.unlanded.length}, skipped: ${r.skipped.length}${r.interrupted ? ' (interrupted: run ralph land again to go on)' : ''}`,
  ];
  if (r.pushed) lines.push(`- Pushed: ${r.pushed.ok ? 'yes' : 'no'}: ${escapeMarkdown(r.pushed.note)}`);
  lines.push('');
  lines.push('## Landed', '');
  if (r.landed.length === 0) lines.push('None.', '');
  for (const l of r.landed) lines.push(`### ${escapeMarkdown(l.id)}`, '', `- Branch: ${escapeMarkdown(l.branch)}`, `- Landed as: ${l.commit.slice(0, 12)}${l.note ? ` (${escapeMarkdown(l.note)})` : ''}`, '', ...checksTable(l.checks, l.sandbox));
  lines.push('## Unlanded', '');
  if (r.unlanded.length === 0) lines.push('None.', '');
  for (const u of r.unlanded) {
    lines.push(`### ${escapeMarkdown(u.id)}`, '', `- Branch: ${escapeMarkdown(u.branch)}`, `- Reason: ${escapeMarkdown(u.reason)}`, '', ...checksTable(u.checks, u.sandbox));
    const failed = u.checks.find((c) => c.exitCode !== 0 || c.timedOut);
    if (failed) lines.push(`Output of \`${failed.kind}\` check (its tail):`, '', markdownFence(failed.tail || '(no output)', 'text'), '');
  }
  lines.push('## Skipped', '');
  if (r.skipped.length === 0) lines.push('None.', '');
  for (const s of r.skipped) lines.push(`- ${escapeMarkdown(s.id)}: ${escapeMarkdown(s.reason)}`);
  return `${lines.join('\n').trimEnd()}\n`;
}
