// A completion claim meets the acceptance gate (docs/signals.md#acceptance-gate): the gate's
// checks run, every one is recorded for the iteration's receipt, and a rejection is told to the
// next iteration, or ends the run when it is the same one max_stalls times in a row.
import { SIGNAL_FILES } from '../contract.js';
import { render } from '../prompts/templates.js';
import { acceptanceGate } from './acceptance-gate.js';
import { runCheckOptions } from './checks.js';
import { normaliseToolError } from './error-loop.js';
import { moveAside, type FileClaims } from './file-signals.js';
import type { Ending, RunContext } from './run-context.js';
import { noteTaskRound } from './task-progress.js';
import type { TaskRound } from './task-checks.js';

export interface Claim {
  /** The claim's name: the signal, the file, the checkbox, or `recovery`. */
  name: string;
  /** What the claim came in: its files are moved aside when it is rejected. */
  files: FileClaims;
  /** A claim recovered after silence (docs/loop.md#silence): its rejection ends the run off the rails. */
  recoveredFrom?: string;
}

/** Runs the gate on iteration `n`'s claim; how the run ends, or undefined to go on with the feedback set. */
export async function judgeClaim(ctx: RunContext, n: number, claim: Claim): Promise<Ending | undefined> {
  const { state, config, paths } = ctx;
  ctx.status('verifying');
  let round: TaskRound | undefined;
  const gate = await acceptanceGate(
    {
      planId: ctx.plan.id,
      summaryPath: config.summaryPath,
      requireSummary: config.requireSummary,
      verify: config.verify,
      cwd: config.cwd,
      runStartedAtMs: state.startedAtMs,
      ...(state.summaryAtStart !== undefined ? { summaryAtStart: state.summaryAtStart } : {}),
      commands: runCheckOptions(config, state.runId, ctx.runSignal, ctx.verifySandbox),
      iteration: n,
      ...(state.tasks?.length ? { tasks: state.tasks } : {}),
      ...(state.guarded ? { guarded: state.guarded } : {}),
    },
    (r) => {
      round = r;
      noteTaskRound(ctx, n, r, false);
    },
  );
  // Each task's result, then the verdict on all of them.
  for (const c of gate.checks ?? []) ctx.ledger.checks.push(...(c.check === 'tasks' && round ? round.results : []), c);
  ctx.emit({ type: 'gate', iteration: n, accepted: gate.complete, reason: gate.reason, ...(gate.verify ? { verify: gate.verify } : {}) });
  if (gate.complete) return { outcome: 'complete', reason: `${claim.name} accepted: ${gate.reason}` };
  if (ctx.runSignal.aborted) return ctx.interruptedOrLimit();
  if (claim.recoveredFrom !== undefined) return { outcome: 'off_rails', reason: `off the rails: ${claim.recoveredFrom}; the recovery claim was rejected: ${gate.reason}` };
  const moved = moveAside(config.cwd, claim.files.files.filter((f) => f !== SIGNAL_FILES.blocked), paths.rejected(n));
  if (moved.length) ctx.warn(`moved the rejected claim's files into ${paths.rejected(n)}: ${moved.join(', ')}`, n);
  const repeated = rejectedAgain(ctx, gate.reason);
  if (repeated) return repeated;
  state.feedback = render(ctx.templates['feedback-completion-rejected'], { claim: claim.name, reason: gate.reason });
  state.nextFresh = false;
  return undefined;
}

/**
 * The same rejection in max_stalls iterations in a row ends the run: the agent is not getting
 * anywhere with it (docs/loop.md#repeated-rejections). Reasons are compared with numbers and paths folded.
 */
function rejectedAgain(ctx: RunContext, reason: string): Ending | undefined {
  const { state, config } = ctx;
  ctx.ledger.rejection = reason;
  const key = normaliseToolError(reason);
  const count = state.rejection?.key === key ? state.rejection.count + 1 : 1;
  state.rejection = { key, count };
  if (config.maxStalls > 0 && count >= config.maxStalls) {
    const quoted = reason.length > 600 ? `${reason.slice(0, 600)}…` : reason;
    return { outcome: 'exhausted', reason: `rejected_repeatedly: the same completion claim was rejected for the same reason in ${count} iterations in a row (max_stalls ${config.maxStalls}): ${quoted}` };
  }
  return undefined;
}
