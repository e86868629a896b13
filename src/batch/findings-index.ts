// The `### Findings Index` of a plan's result: one line per valid observation of its run, and the
// verdict they imply. findings.jsonl is written by ralph but holds agent text, so every field is
// checked and every title flattened to one line.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { OBSERVATION_TYPES, RUN_FILES, SEVERITIES, type ObservationType, type Severity } from '../contract.js';
import { createIdCounter, PRIORITY_OF, type Priority } from './finding-codes.js';
import { markdownLine } from './one-line.js';
import type { AttemptOutcome, Verdict } from './types.js';

export const FINDINGS_HEADING = '### Findings Index';
export const VERDICT_PREFIX = 'Verdict: ';

export interface Finding {
  type: ObservationType;
  severity: Severity;
  title: string;
}

export interface IndexedFinding extends Finding {
  priority: Priority;
  id: string;
}

const TYPES = new Set<string>(OBSERVATION_TYPES);
const SEVERITY_SET = new Set<string>(SEVERITIES);

/** Valid observations of findings.jsonl text; lines that do not parse or validate are skipped. */
export function parseFindings(text: string): Finding[] {
  const out: Finding[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      continue; // a line cut short by a crash
    }
    if (typeof record !== 'object' || record === null) continue;
    const r = record as Record<string, unknown>;
    if (r.valid !== true) continue;
    if (typeof r.type !== 'string' || !TYPES.has(r.type)) continue;
    if (typeof r.severity !== 'string' || !SEVERITY_SET.has(r.severity)) continue;
    out.push({
      type: r.type as ObservationType,
      severity: r.severity as Severity,
      title: typeof r.title === 'string' && r.title.trim() !== '' ? r.title : '(untitled)',
    });
  }
  return out;
}

export async function readFindings(runDir: string): Promise<Finding[]> {
  try {
    return parseFindings(await readFile(join(runDir, RUN_FILES.findings), 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export function indexFindings(findings: Finding[]): IndexedFinding[] {
  const next = createIdCounter();
  return findings.map((f) => ({ ...f, priority: PRIORITY_OF[f.severity], id: next(f.type) }));
}

export function formatFindingLine(f: IndexedFinding): string {
  return `- ${f.priority} | ${f.id} | "${f.type}" | ${markdownLine(f.title)}`;
}

/** What each verdict word means, where a verdict is shown (result files, index.md). */
export const VERDICT_WORDS = 'safe: complete, no P0 or P1 finding · needs-changes: a P1 finding, or not complete · risky: a P0 finding · error: the plan failed twice, or is invalid';

/** any P0 → risky; else any P1 or an outcome other than complete → needs-changes; else safe. */
export function verdictOf(findings: IndexedFinding[], outcome: AttemptOutcome): Verdict {
  if (findings.some((f) => f.priority === 'P0')) return 'risky';
  if (findings.some((f) => f.priority === 'P1') || outcome !== 'complete') return 'needs-changes';
  return 'safe';
}
