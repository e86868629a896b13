// `ralph status`: one run's state, health, limits left and cost.
import { findRun } from '../runs/find-run.js';
import { viewRun, type RunView } from '../runs/run-view.js';
import { formatDuration } from '../util/duration.js';
import type { CliContext, RegisterCommand } from './context.js';
import { safeJson, stripControlLine } from '../ui/sanitize.js';

export const registerStatus: RegisterCommand = (program, ctx) => {
  program
    .command('status')
    .description("a run's state, iteration, limits left, cost, signal files present, and health (running, stale, dead, or its outcome)")
    .argument('[run]', 'a run id as `ralph runs` lists it, or latest', 'latest')
    .option('--cwd <dir>', "a folder of the project whose .ralph/ to look in (default: the current directory; .ralph/ is at the project's root)")
    .option('--run-dir <dir>', 'a run directory to read directly')
    .option('--json', 'print the status as one JSON object')
    .option('--queue <url>', 'instead: which worker runs which plan of queued batches on this Redis (docs/queue.md)')
    .action(async (run: string, flags: { cwd?: string; runDir?: string; json?: boolean; queue?: string }) => {
      if (flags.queue !== undefined) {
        const { parseQueueUrl } = await import('../queue/redis-url.js');
        const { readQueueStatus, renderQueueStatus } = await import('../queue/queue-status.js');
        const s = await readQueueStatus(parseQueueUrl(flags.queue));
        ctx.stdout.write(flags.json ? `${JSON.stringify(s)}\n` : renderQueueStatus(s, new Date()));
        return;
      }
      ctx.exitCode = statusCommand(run, flags, ctx);
    });
};

export function statusCommand(run: string, flags: { cwd?: string; runDir?: string; json?: boolean }, ctx: CliContext): number {
  const view = viewRun(findRun(flags.cwd ?? process.cwd(), run, flags.runDir));
  if (flags.json) {
    ctx.stdout.write(`${safeJson(summarise(view))}\n`);
    return 0;
  }
  const s = summarise(view);
  // BLOCKED.md's reason, a plan path, a warning: agent text, shown the way the live display shows it.
  const t = (v: string | number | null | undefined) => stripControlLine(String(v ?? '?'));
  const lines = [
    `run        ${t(s.run)}  (${t(s.dir)})`,
    `health     ${t(s.health)}: ${t(s.why)}`,
    `plan       ${t(s.plan)}`,
    // While waiting, the iteration that runs next: before the first one that is 1, not 0.
    `state      ${t(s.state)}${s.waitingUntil ? ` until ${t(s.waitingUntil)}` : ''}, ${s.state === 'waiting' && typeof s.iteration === 'number' ? `iteration ${s.iteration + 1}${s.limits ? ` of ${t(s.limits.maxIterations)}` : ''} next` : `iteration ${t(s.iteration)}${s.limits ? ` of ${t(s.limits.maxIterations)}` : ''}`}`,
    `limits     ${s.limits ? limitsText(s.limits) : 'unknown'}`,
    `left       ${s.left.join(', ') || 'unknown'}`,
    `cost       ${s.costUsd === null ? 'unknown' : `$${s.costUsd.toFixed(4)}`}, ${s.tokens} tokens`,
    ...(s.tasksVerified ? [`tasks      ${t(s.tasksVerified)}${taskList(s.tasks)}`] : []),
    `signals    ${s.signalFiles.length ? t(s.signalFiles.join(', ')) : 'no signal files present'}`,
    `last event ${t(s.lastEventAt ?? 'none')}`,
  ];
  if (s.outcome) lines.push(`outcome    ${t(s.outcome)} (exit ${t(s.exitCode)}): ${t(s.reason)}`);
  ctx.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** Each task's state after the count: `Alpha passing, Beta failing`. */
function taskList(tasks: { name: string; status: string }[] | null): string {
  if (!tasks?.length) return '';
  return `: ${tasks.map((x) => `${stripControlLine(x.name)} ${x.status}`).join(', ')}`;
}

/** The limits in force, every one named, none left implicit (docs/first-hour.md). */
function limitsText(l: NonNullable<RunView['state']>['limits']): string {
  return [
    `${l.maxIterations} iterations`,
    `${l.maxBailouts} bailouts in a row`,
    `runtime ${l.maxRuntimeMs === null ? 'none' : formatDuration(l.maxRuntimeMs)}`,
    `cost ${l.maxCostUsd === null ? 'none' : `$${l.maxCostUsd}`}`,
    `silence ${formatDuration(l.silenceTimeoutMs)}`,
  ].join(', ');
}

function summarise(v: RunView) {
  const st = v.state;
  const limits = st?.limits;
  const iteration = st?.iteration ?? v.status?.iteration ?? v.result?.iterations ?? 0;
  const costUsd = v.result?.costUsd ?? st?.costUsd ?? null;
  const left: string[] = [];
  if (limits && st) {
    left.push(`${Math.max(0, limits.maxIterations - iteration)} iteration(s)`);
    left.push(`${Math.max(0, limits.maxBailouts - st.consecutiveBailouts)} bailout(s) in a row`);
    if (limits.maxCostUsd !== null) left.push(`$${Math.max(0, limits.maxCostUsd - (costUsd ?? 0)).toFixed(4)}`);
    if (limits.maxRuntimeMs !== null) left.push(formatDuration(Math.max(0, st.startedAtMs + limits.maxRuntimeMs - Date.now())));
  }
  const t = v.result?.tokens ?? st?.tokens;
  return {
    run: v.runId,
    dir: v.dir,
    health: v.health,
    why: v.why,
    plan: v.status?.plan ?? st?.planPath ?? null,
    state: v.status?.state ?? null,
    waitingUntil: v.status?.state === 'waiting' ? (v.status.waitingUntil ?? null) : null,
    iteration,
    limits: limits ?? null,
    left,
    costUsd,
    tokens: t ? t.input + t.output + t.cacheRead + t.cacheWrite : 0,
    signalFiles: v.signalFiles,
    lastEventAt: v.lastEventAt,
    outcome: v.result?.outcome ?? null,
    exitCode: v.result?.exitCode ?? null,
    reason: v.result?.reason ?? null,
    pid: v.status?.pid ?? null,
    tasksVerified: v.result?.tasksVerified ?? v.status?.tasksVerified ?? null,
    tasks: v.result?.tasks ?? v.status?.tasks ?? st?.tasks ?? null,
    receipts: v.result?.receipts ?? st?.receipts ?? [],
  };
}
