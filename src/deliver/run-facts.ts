// What ralph knows about a finished run, read back from the files it wrote (docs/files.md):
// result.json, events.jsonl (the gate's verify records), findings.jsonl, BLOCKED.md, the summary
// and the plan. Everything from the agent's side is untrusted text: kept as data here, escaped by
// whoever renders it. Any file that is missing or unreadable leaves its part empty.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_FILES } from '../contract.js';
import type { VerifyRecord } from '../loop/acceptance-gate.js';
import { parsePlan } from '../plan/index.js';

export interface RunFinding {
  type: string;
  severity: string;
  title: string;
  file: string | null;
}

export interface RunFacts {
  planId: string;
  planPath: string;
  outcome: string;
  reason: string;
  iterations: number | null;
  costUsd: number | null;
  /** Wall time of the run, ms. */
  durationMs: number | null;
  objective: string | null;
  /** The plan's tasks, with the status the summary gave each (null: not reported). */
  tasks: { name: string; status: string | null }[];
  /** The plan's verify commands; `ran` holds the gate's record of each, when it ran them. */
  verify: { command: string; ran: VerifyRecord | null }[];
  findings: RunFinding[];
  /** BLOCKED.md as the run wrote it (with the agent's evidence), for a blocked plan. */
  blocked: string | null;
  /** Where the run's files are, as the caller wants them shown. */
  runDir: string;
}

const MAX_READ = 4 * 1024 * 1024;

async function readText(path: string): Promise<string | null> {
  try {
    const text = await readFile(path, 'utf8');
    return text.length > MAX_READ ? text.slice(0, MAX_READ) : text;
  } catch {
    return null;
  }
}

function jsonLines(text: string | null): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const line of (text ?? '').split('\n')) {
    if (line.trim() === '') continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v && typeof v === 'object' && !Array.isArray(v)) out.push(v as Record<string, unknown>);
    } catch {
      // a line cut short by a crash
    }
  }
  return out;
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The last gate that ran verify commands: the accepted one when there is one. */
function verifyRecords(events: Record<string, unknown>[]): VerifyRecord[] {
  const gates = events.filter((e) => e.type === 'gate' && Array.isArray(e.verify));
  const chosen = gates.filter((e) => e.accepted === true).at(-1) ?? gates.at(-1);
  const list = (chosen?.verify as unknown[] | undefined) ?? [];
  return list
    .filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>).command === 'string')
    .map((v) => ({ command: v.command as string, exitCode: num(v.exitCode), timedOut: v.timedOut === true, durationMs: num(v.durationMs) ?? 0 }));
}

function summaryTasks(text: string | null): Map<string, string> {
  const out = new Map<string, string>();
  if (text === null) return out;
  try {
    const s = JSON.parse(text) as { tasks?: unknown };
    if (Array.isArray(s.tasks)) for (const t of s.tasks) if (typeof t?.name === 'string' && typeof t?.status === 'string') out.set(t.name, t.status);
  } catch {
    // no summary to speak of
  }
  return out;
}

/**
 * The facts with the outcome and reason the batch recorded for the plan (its result file's): a
 * timed-out or crashed run has no result.json of its own, or one that says only `interrupted`.
 * An empty recorded reason keeps the run's.
 */
export function withRecordedOutcome(facts: RunFacts, outcome: string, reason: string | undefined): RunFacts {
  return { ...facts, outcome, reason: reason || facts.reason };
}

export async function readRunFacts(o: { runDir: string; planPath: string; shownRunDir?: string }): Promise<RunFacts> {
  const [resultText, eventsText, findingsText, blocked, planText] = await Promise.all([
    readText(join(o.runDir, RUN_FILES.result)),
    readText(join(o.runDir, RUN_FILES.events)),
    readText(join(o.runDir, RUN_FILES.findings)),
    readText(join(o.runDir, RUN_FILES.blocked)),
    readText(o.planPath),
  ]);
  let result: Record<string, unknown> = {};
  try {
    result = (JSON.parse(resultText ?? '{}') as Record<string, unknown>) ?? {};
  } catch {
    // a run that did not end writes no result
  }
  const { plan } = planText === null ? { plan: undefined } : parsePlan(planText, o.planPath);
  const summary = plan ? summaryTasks(await readText(plan.summaryPath)) : new Map<string, string>();
  const ran = verifyRecords(jsonLines(eventsText));
  const planVerify = plan?.config.verify ?? [];
  const verify = [...planVerify.map((command) => ({ command, ran: ran.find((r) => r.command === command) ?? null }))];
  for (const r of ran) if (!planVerify.includes(r.command)) verify.push({ command: r.command, ran: r });
  const started = Date.parse(str(result.startedAt) ?? '');
  const ended = Date.parse(str(result.endedAt) ?? '');
  const objective = planText === null ? null : (/<objective>([\s\S]*?)<\/objective>/i.exec(planText)?.[1]?.trim() ?? /^#\s+(.+)$/m.exec(plan?.body ?? '')?.[1]?.trim() ?? null);
  return {
    planId: plan?.id ?? str(result.plan) ?? 'plan',
    planPath: o.planPath,
    outcome: str(result.outcome) ?? 'unknown',
    reason: str(result.reason) ?? '',
    iterations: num(result.iterations),
    costUsd: num(result.costUsd),
    durationMs: Number.isFinite(started) && Number.isFinite(ended) ? Math.max(0, ended - started) : null,
    objective: objective || null,
    tasks: (plan?.tasks ?? []).map((t) => ({ name: t.name, status: summary.get(t.name) ?? null })),
    verify,
    findings: jsonLines(findingsText)
      .filter((f) => f.valid === true)
      .map((f) => ({ type: str(f.type) ?? 'note', severity: str(f.severity) ?? 'low', title: str(f.title) ?? '(untitled)', file: str(f.file) })),
    blocked,
    runDir: o.shownRunDir ?? o.runDir,
  };
}
