// `ralph runs`: the recent runs of a working directory, single and batch, newest first
// (docs/first-hour.md). Read from the run files only, as `ralph status` reads one run.
import { listAllRuns } from '../runs/find-run.js';
import { ralphDir } from '../runs/project-root.js';
import { viewRun } from '../runs/run-view.js';
import { stripControl } from '../ui/sanitize.js';
import { formatDuration } from '../util/duration.js';
import { positiveInt } from './exec-options.js';
import type { RegisterCommand } from './context.js';

export interface RunRow {
  run: string;
  plan: string | null;
  /** running, stale, dead, or the outcome. */
  outcome: string;
  startedAt: string | null;
  ageMs: number | null;
  iterations: number;
  costUsd: number | null;
  dir: string;
}

export function listRunRows(cwd: string, now = Date.now()): RunRow[] {
  const rows: RunRow[] = [];
  for (const { id, paths } of listAllRuns(cwd)) {
    const v = viewRun(paths, now);
    if (!v.state && !v.result && !v.status) continue; // not a run (yet)
    const startedAt = v.result?.startedAt ?? v.state?.startedAt ?? v.status?.started ?? null;
    const started = startedAt === null ? NaN : Date.parse(startedAt);
    rows.push({
      // The id status, stop, report --run and logs take (find-run.ts).
      run: id,
      plan: v.result?.plan ?? v.state?.plan ?? null,
      outcome: v.health,
      startedAt,
      ageMs: Number.isFinite(started) ? Math.max(0, now - started) : null,
      iterations: v.result?.iterations ?? v.state?.iteration ?? v.status?.iteration ?? 0,
      costUsd: v.result?.costUsd ?? v.state?.costUsd ?? null,
      dir: paths.dir,
    });
  }
  return rows.sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? ''));
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')).join('\n');
}

export const registerRuns: RegisterCommand = (program, ctx) => {
  program
    .command('runs')
    .description('recent runs here (single and batch), newest first: id, plan, outcome, age, iterations, cost')
    .option('--cwd <dir>', "a folder of the project whose .ralph/ to read (default: the current directory; .ralph/ is at the project's root)")
    .option('--limit <n>', 'show at most n runs (default: 20)', positiveInt('--limit'))
    .option('--json', 'print the runs as one JSON array')
    .action((flags: { cwd?: string; limit?: number; json?: boolean }) => {
      const rows = listRunRows(flags.cwd ?? process.cwd()).slice(0, flags.limit ?? 20);
      if (flags.json) {
        ctx.stdout.write(`${JSON.stringify(rows)}\n`);
        return;
      }
      if (rows.length === 0) {
        ctx.stdout.write(`no runs in ${ralphDir(flags.cwd ?? process.cwd())} yet; start one with: ralph exec <plan.md> -- <agent command>\n`);
        return;
      }
      const cell = (s: string) => stripControl(s).replace(/\s+/g, ' ').slice(0, 60);
      const lines = [
        ['RUN', 'PLAN', 'OUTCOME', 'AGE', 'ITERATIONS', 'COST'],
        ...rows.map((r) => [
          cell(r.run),
          cell(r.plan ?? '?'),
          r.outcome,
          r.ageMs === null ? 'unknown' : formatDuration(r.ageMs),
          String(r.iterations),
          r.costUsd === null ? 'unknown' : `$${r.costUsd.toFixed(4)}`,
        ]),
      ];
      ctx.stdout.write(`${table(lines)}\n`);
    });
};
