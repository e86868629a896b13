// The end of a run (docs/files.md#resultjson): result.json written atomically (also synchronously,
// on the way out of a second Ctrl+C), the `run-end` event, then the on_outcome hooks and
// notifications, whose warnings belong in result.json too. BLOCKED.md when a run ends blocked.
import { EXIT_CODES } from '../contract.js';
import type { RunSandbox } from '../sandbox/index.js';
import { writeFileAtomicSync } from '../util/atomic-write.js';
import { isDiskFull } from './disk-full.js';
import type { FileClaims } from './file-signals.js';
import type { RunLifecycle } from './lifecycle.js';
import { taskReceipts } from './receipts.js';
import type { Ending, RunContext } from './run-context.js';
import { tasksVerified } from './task-checks.js';
import type { RunResult } from './types.js';

export interface RunEndParts {
  sandbox: RunSandbox | undefined;
  lifecycle: RunLifecycle | undefined;
}

export function buildResult(ctx: RunContext, parts: RunEndParts, ending: Ending, endedAt?: string): RunResult {
  const s = ctx.state;
  const { sandbox } = parts;
  // Counts that grew in the last iteration are reported before the run ends.
  sandbox?.flush();
  return {
    run: s.runId,
    plan: s.plan,
    outcome: ending.outcome,
    exitCode: EXIT_CODES[ending.outcome],
    reason: ending.reason,
    iterations: s.iteration,
    bailouts: s.bailouts,
    signals: s.signals,
    stops: s.stops ?? [],
    prUrl: s.prUrl,
    costUsd: s.costUsd,
    tokens: s.tokens,
    startedAt: s.startedAt,
    endedAt: endedAt ?? new Date(ctx.clock.now()).toISOString(),
    warnings: [...s.warnings],
    ...(s.tasks?.length ? { tasksVerified: tasksVerified(s.tasks), tasks: taskReceipts(s.tasks, s.receipts ?? []) } : {}),
    receipts: s.receipts ?? [],
    runDir: ctx.paths.dir,
    sandbox: sandbox ? { mode: 'on', ...sandbox.summary() } : { mode: 'off', denied: 0, refusals: [] },
  };
}

export function writeResultSync(ctx: RunContext, parts: RunEndParts, ending: Ending, endedAt?: string): RunResult {
  const result = buildResult(ctx, parts, ending, endedAt);
  ctx.state.outcome = ending.outcome;
  if (ending.outcome !== 'interrupted') ctx.state.iterationStart = null;
  writeFileAtomicSync(ctx.paths.result, `${JSON.stringify(result, null, 2)}\n`);
  ctx.status(ending.outcome);
  return result;
}

export async function finishRun(ctx: RunContext, parts: RunEndParts, ending: Ending): Promise<RunResult> {
  let result: RunResult;
  try {
    result = writeResultSync(ctx, parts, ending);
  } catch (error) {
    if (!isDiskFull(error)) throw error;
    // No room for result.json: the outcome is still reported, and said to be unwritten.
    result = buildResult(ctx, parts, { ...ending, reason: `${ending.reason}; result.json could not be written (${(error as Error).message})` });
  }
  ctx.emit({ type: 'run-end', outcome: result.outcome, exitCode: result.exitCode, reason: result.reason, result });
  if (parts.lifecycle === undefined) return result;
  // on_outcome hooks and notifications: their warnings belong in result.json too.
  const warningsBefore = ctx.state.warnings.length;
  await parts.lifecycle.end(result);
  return ctx.state.warnings.length > warningsBefore ? writeResultSync(ctx, parts, ending, result.endedAt) : result;
}

/** A run that ends blocked leaves BLOCKED.md in its directory: why, and the agent's evidence. */
export function escalate(ctx: RunContext, reason: string, fc: FileClaims, how: string): Ending {
  const lines = [
    '# Blocked',
    '',
    `Run: ${ctx.state.runId}`,
    `Plan: ${ctx.plan.id} (${ctx.plan.path})`,
    `Iteration: ${ctx.state.iteration}`,
    `Reason: ${reason}`,
    `Escalation: ${how}`,
    '',
  ];
  if (fc.blockedEvidence !== undefined) lines.push('## Evidence (BLOCKED.md)', '', fc.blockedEvidence, '');
  writeFileAtomicSync(ctx.paths.blocked, `${lines.join('\n')}\n`);
  return { outcome: 'blocked', reason: how === 'blocked' ? reason : `${reason} (${how})` };
}
