// `ralph runs`: the recent runs of a working directory, single and batch, newest first
// (docs/first-hour.md). Read from the run files only, as `ralph status` reads one run.
import { roundUsd } from '../loop/price-table.js';
import { listAllRuns } from '../runs/find-run.js';
import { ralphDir } from '../runs/project-root.js';
import { viewRun } from '../runs/run-view.js';
import { safeJson, stripControl } from '../ui/sanitize.js';
import { formatDuration } from '../util/duration.js';
import { positiveInt } from './exec-options.js';
import type { RegisterCommand } from './context.js';

export interface RunRow {
  run: string;
  plan: string | null;
  /** running, stale, dead, unreadable, or the outcome. */
  outcome: string;
  startedAt: string | null;
  ageMs: number | null;
  iterations: number;
  costUsd: number | null;
  /** Some of the cost is an estimate from the price table (docs/files.md#receipts). */
  costEstimated: boolean;
  /** "tasks 2/3 verified", null for a plan without task checks. */
  tasksVerified: string | null;
  /** Per task: iterations and cost up to the one where it first passed. */
  tasks: { name: string; iterations: number | null; costUsd: number | null }[];
  dir: string;
  /** Why an unreadable entry cannot be read (docs/hostile.md#a-corrupted-ralph). */
  problem?: string;
}

export function listRunRows(cwd: string, now = Date.now()): RunRow[] {
  const rows: RunRow[] = [];
  for (const { id, paths, problem } of listAllRuns(cwd)) {
    const unreadable = (why: string): RunRow => ({
      run: id,
      plan: null,
      outcome: 'unreadable',
      startedAt: null,
      ageMs: null,
      iterations: 0,
      costUsd: null,
      costEstimated: false,
      tasksVerified: null,
      tasks: [],
      dir: paths.dir,
      problem: why,
    });
    if (problem !== undefined) {
      rows.push(unreadable(problem));
      continue;
    }
    const v = viewRun(paths, now);
    if (v.problems.length > 0) {
      rows.push(unreadable(v.problems.join('; ')));
      continue;
    }
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
      costUsd: costOf(v.result?.costUsd ?? v.state?.costUsd ?? null, v.result?.receipts ?? v.state?.receipts ?? []),
      costEstimated: (v.result?.receipts ?? v.state?.receipts ?? []).some((r) => r.costEstimated),
      tasksVerified: v.result?.tasksVerified ?? null,
      tasks: (v.result?.tasks ?? []).map((t) => ({ name: t.name, iterations: t.iterations, costUsd: t.costUsd })),
      dir: paths.dir,
    });
  }
  return rows.sort((a, b) => (b.startedAt ?? '').localeCompare(a.startedAt ?? ''));
}

/** The reported cost; when none was reported, the receipts' estimates, if every iteration has one. */
function costOf(reported: number | null, receipts: { costUsd: number | null }[]): number | null {
  if (reported !== null || receipts.length === 0 || receipts.some((r) => r.costUsd === null)) return reported;
  return roundUsd(receipts.reduce((sum, r) => sum + (r.costUsd ?? 0), 0));
}

const money = (usd: number | null, estimated = false) => (usd === null ? 'unknown' : `$${usd.toFixed(4)}${estimated ? ' (est.)' : ''}`);

/** `ralph runs --cost`: what each accepted plan cost, and per task up to where its check first passed. */
function costTable(rows: RunRow[], cell: (s: string) => string): string {
  const lines = [['RUN', 'PLAN', 'ITERATIONS', 'COST', 'TASKS']];
  for (const r of rows) {
    const tasks = r.tasks.map((t) => `${cell(t.name)} ${t.iterations ?? '?'} it. ${money(t.costUsd)}`).join('; ');
    lines.push([cell(r.run), cell(r.plan ?? '?'), String(r.iterations), money(r.costUsd, r.costEstimated), tasks || '—']);
  }
  const known = rows.filter((r) => r.costUsd !== null);
  const total = known.reduce((sum, r) => sum + (r.costUsd ?? 0), 0);
  return `${table(lines)}
${rows.length} accepted plan(s), ${money(total, rows.some((r) => r.costEstimated))} in total${known.length < rows.length ? ` (${rows.length - known.length} of unknown cost)` : ''}`;
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
    .option('--cost', 'only accepted (complete) plans: their cost (reported, or estimated and marked so) and each task\'s, with a total')
    .action((flags: { cwd?: string; limit?: number; json?: boolean; cost?: boolean }) => {
      const all = listRunRows(flags.cwd ?? process.cwd());
      const rows = (flags.cost ? all.filter((r) => r.outcome === 'complete') : all).slice(0, flags.limit ?? 20);
      if (flags.json) {
        ctx.stdout.write(`${safeJson(rows)}\n`);
        return;
      }
      if (rows.length === 0 && flags.cost && all.length > 0) {
        ctx.stdout.write('no accepted (complete) plans among the runs here yet\n');
        return;
      }
      if (rows.length === 0) {
        ctx.stdout.write(`no runs in ${ralphDir(flags.cwd ?? process.cwd())} yet; start one with: ralph exec <plan.md> -- <agent command>\n`);
        return;
      }
      const cell = (s: string, max = 60) => stripControl(s).replace(/\s+/g, ' ').slice(0, max);
      if (flags.cost) {
        ctx.stdout.write(`${costTable(rows, cell)}\n`);
        return;
      }
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
      // What cannot be read is said, with why, under the runs that can.
      const broken = rows.filter((r) => r.problem !== undefined).map((r) => `  ${cell(r.dir, 200)}: ${cell(r.problem!, 300)}`);
      ctx.stdout.write(`${table(lines)}\n${broken.length ? `\nunreadable:\n${broken.join('\n')}\n` : ''}`);
    });
};
