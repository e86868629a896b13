import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/runs/', import.meta.url));
export const BASIC = join(FIXTURES, 'basic');
export const MALICIOUS = join(FIXTURES, 'malicious');
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** A findings.jsonl line as ralph writes it. */
export function findingLine(over: Record<string, unknown>): string {
  return JSON.stringify({
    run: 'r1', plan: 'p', iteration: 1, at: '2026-01-01T00:00:00.000Z', valid: true,
    type: 'bug', severity: 'low', title: 't', detail: '', file: null, action: 'none', ...over,
  });
}

/**
 * `runs` run folders under `dir`, each with `perRun` distinct findings (finding i of run r is
 * "Finding r-i", severity by i % 5) and a result.json; run r also repeats "Recurring i" for i < r.
 */
export async function writeManyRuns(dir: string, runs: number, perRun: number): Promise<void> {
  const { mkdir, writeFile } = await import('node:fs/promises');
  const severities = ['critical', 'high', 'medium', 'low', 'info'];
  for (let r = 0; r < runs; r++) {
    const run = `run-${String(r).padStart(3, '0')}`;
    await mkdir(join(dir, run), { recursive: true });
    const lines: string[] = [];
    for (let i = 0; i < perRun; i++) {
      lines.push(findingLine({ run, plan: `plan-${r % 3}`, at: new Date(Date.UTC(2026, 0, 1, 0, r, i)).toISOString(), severity: severities[i % 5], title: `Finding ${r}-${i}`, detail: `detail of finding ${r}-${i}`, file: `src/f${i % 7}.ts` }));
    }
    for (let i = 0; i < r; i++) lines.push(findingLine({ run, plan: `plan-${r % 3}`, severity: 'critical', title: `Recurring ${i}`, detail: `recurring detail ${i}` }));
    await writeFile(join(dir, run, 'findings.jsonl'), `${lines.join('\n')}\n`);
    await writeFile(join(dir, run, 'result.json'), JSON.stringify({ run, plan: `plan-${r % 3}`, outcome: r % 4 === 0 ? 'failed' : 'complete', exitCode: r % 4 === 0 ? 1 : 0, reason: 'done', iterations: 2, bailouts: 0, costUsd: 0.25, prUrl: null, startedAt: '2026-01-01T00:00:00.000Z', endedAt: '2026-01-01T01:00:00.000Z' }));
  }
}
