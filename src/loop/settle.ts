// Settling an iteration (docs/signals.md#decisions): its signals and claims are weighed into one
// decision, and the decision applied: the gate for a claim, a fresh context for a bailout, the
// end for a failure, a blocker checked, and for no decision the counts that end a run going
// nowhere (failures, stalls, permission denials). Returns how the run ends, or undefined to go on.
import { SIGNAL, SIGNAL_FILES } from '../contract.js';
import { render } from '../prompts/templates.js';
import { decide, type Decision, type Weighed } from '../signals/index.js';
import { checkBlocker } from './blocker-check.js';
import { findPrUrl, moveAside, type FileClaims } from './file-signals.js';
import { judgeClaim } from './gate-step.js';
import { commitsSince } from './git.js';
import type { IterationResult } from './iteration.js';
import type { Ending, RunContext } from './run-context.js';
import { escalate } from './run-end.js';
import { SETUP_FAILURES, SetupFailures } from './setup-failures.js';

type Weighing = { decision: Decision; recoveredFrom?: string } | { ending: Ending };

export class Settler {
  private readonly setupFailures = new SetupFailures();
  /** Near misses of the stalled iterations in a row, for the no_progress reason. */
  private stallNearMisses: string[] = [];

  constructor(private readonly ctx: RunContext) {}

  async settle(n: number, weighed: Weighed[], fc: FileClaims, result: IterationResult | undefined, progressed = true): Promise<Ending | undefined> {
    const { state, config } = this.ctx;
    for (const w of weighed) state.signals.push({ iteration: n, name: w.name, args: w.args, source: w.source });
    const prUrl = findPrUrl(config.cwd);
    if (prUrl) state.prUrl = prUrl;
    const weighing = await this.weigh(n, weighed, result);
    if ('ending' in weighing) return weighing.ending;
    const { decision } = weighing;
    this.ctx.emit({ type: 'decision', iteration: n, decision });
    this.resetStreaks(decision);
    if (decision.kind === 'none') {
      this.explainNearMisses(result);
      const denied = this.countDenials(result, progressed);
      if (denied) return denied;
    }
    switch (decision.kind) {
      case 'complete':
        return judgeClaim(this.ctx, n, { name: decision.name, files: fc, ...(weighing.recoveredFrom !== undefined ? { recoveredFrom: weighing.recoveredFrom } : {}) });
      case 'bailout':
        return this.bailout(decision.reason);
      case 'failed':
        return { outcome: 'failed', reason: decision.reason };
      case 'blocked':
        return this.blocked(n, decision.reason, weighed, fc, result);
      case 'none':
        return this.none(n, result, progressed);
      default: {
        const never: never = decision;
        throw new Error(`unknown decision ${JSON.stringify(never)}`);
      }
    }
  }

  /** The decision, with what an agent stopped off the rails leaves to recover (docs/loop.md#off-the-rails). */
  private async weigh(n: number, weighed: Weighed[], result: IterationResult | undefined): Promise<Weighing> {
    const { ctx } = this;
    let decision: Decision = decide(weighed);
    const stop = result?.stop;
    if (stop?.cause === 'silence') {
      if (decision.kind === 'none') {
        const commits = await commitsSince(ctx.config.cwd, ctx.state.iterationStart?.head ?? null);
        if (commits === 0) return { ending: { outcome: 'off_rails', reason: `off the rails: ${stop.detail}; no completion file and no commits to recover from` } };
        decision = { kind: 'complete', name: 'recovery', source: `${commits} commit(s)` };
        ctx.warn(`recovered after silence: ${commits} commit(s) since iteration ${n} started count as a completion claim`, n);
      } else if (decision.kind === 'complete') {
        ctx.warn(`recovered after silence: ${decision.source} counts as a completion claim`, n);
      }
      return decision.kind === 'complete' ? { decision, recoveredFrom: stop.detail } : { decision };
    }
    if (stop?.cause === 'flood' && decision.kind === 'none') return { ending: { outcome: 'off_rails', reason: `off the rails: ${stop.detail} without a decision` } };
    if (stop?.cause === 'error_loop' && (decision.kind === 'none' || decision.kind === 'bailout')) return { ending: { outcome: 'off_rails', reason: `off the rails: ${stop.detail}` } };
    return { decision };
  }

  /** Counts of things "in a row" end with any other decision. */
  private resetStreaks(decision: Decision): void {
    const { state } = this.ctx;
    if (decision.kind !== 'complete') state.rejection = null;
    if (decision.kind !== 'bailout') state.consecutiveBailouts = 0;
    if (decision.kind !== 'blocked') state.consecutiveBlockRejections = 0;
    if (decision.kind !== 'none') {
      state.consecutiveFailures = 0;
      this.setupFailures.reset();
      state.consecutiveStalls = 0;
      this.stallNearMisses = [];
      state.consecutiveDenials = 0;
    }
  }

  private bailout(reason: string): Ending | undefined {
    const { state, config } = this.ctx;
    state.bailouts++;
    state.consecutiveBailouts++;
    if (state.consecutiveBailouts > config.maxBailouts) {
      return { outcome: 'exhausted', reason: `max_bailouts reached: ${state.consecutiveBailouts} bailouts in a row (limit ${config.maxBailouts}); last: ${reason}` };
    }
    this.ctx.startFresh(reason);
    return undefined;
  }

  /** A blocker counts with evidence and a reason the plan does not refuse (docs/signals.md#blocked). */
  private blocked(n: number, reason: string, weighed: Weighed[], fc: FileClaims, result: IterationResult | undefined): Ending | undefined {
    const { ctx } = this;
    const { state, config } = ctx;
    const verdict = checkBlocker({ reason, hasEvidence: (result?.blockerObservation ?? false) || fc.blockedEvidence !== undefined, reject: config.rejectBlockers });
    if (verdict.valid) return escalate(ctx, reason, fc, 'blocked');
    state.consecutiveBlockRejections++;
    ctx.emit({ type: 'gate', iteration: n, accepted: false, reason: `blocker rejected: ${verdict.why}` });
    ctx.ledger.rejection = `blocker rejected: ${verdict.why}`;
    if (state.consecutiveBlockRejections >= 2) {
      return escalate(ctx, reason, fc, `escalated after blocker claims were rejected in two iterations in a row (last: ${verdict.why})`);
    }
    moveAside(config.cwd, fc.files.filter((f) => f === SIGNAL_FILES.blocked), ctx.paths.rejected(n));
    // A hard failure of the same iteration is never lost with the rejected blocker.
    const failed = decide(weighed.filter((w) => w.class !== 'blocked'));
    if (failed.kind === 'failed') {
      ctx.emit({ type: 'decision', iteration: n, decision: failed });
      return { outcome: 'failed', reason: failed.reason };
    }
    state.feedback = render(ctx.templates['feedback-blocker-rejected'], { reason, why: verdict.why });
    state.nextFresh = false;
    return undefined;
  }

  /** No decision: the run goes on, unless the agent keeps failing, stalls, or outgrew its context. */
  private none(n: number, result: IterationResult | undefined, progressed: boolean): Ending | undefined {
    const { state, config } = this.ctx;
    if (result?.fatal) return { outcome: 'failed', reason: result.exitError ?? 'the executor could not run' };
    const failing = this.countFailures(n, result);
    if (failing) return failing;
    const stalled = this.countStalls(n, result, progressed);
    if (stalled) return stalled;
    if (result && result.contextTokens > config.contextBudget) {
      state.signals.push({ iteration: n, name: SIGNAL.BAILOUT, args: ['context_budget'], source: 'ralph' });
      state.bailouts++;
      state.consecutiveBailouts++;
      if (state.consecutiveBailouts > config.maxBailouts) {
        return { outcome: 'exhausted', reason: `max_bailouts reached: ${state.consecutiveBailouts} bailouts in a row (last: context_budget)` };
      }
      this.ctx.startFresh('context_budget');
      return undefined;
    }
    state.nextFresh = false;
    return undefined;
  }

  /** The agent exited non-zero without deciding anything: three in a row end the run failed. */
  private countFailures(n: number, result: IterationResult | undefined): Ending | undefined {
    const { state } = this.ctx;
    if (!result || result.stop !== undefined || result.exitCode === 0) {
      state.consecutiveFailures = 0;
      this.setupFailures.reset();
      return undefined;
    }
    state.consecutiveFailures++;
    // exitError already says who failed ("the Anthropic API failed …"): never "the executor the …".
    const why = result.exitError ?? `exited ${result.exitCode ?? 'by a signal'}`;
    const said = result.failureDetail !== undefined ? `: ${result.failureDetail}` : '';
    this.ctx.warn(`iteration ${n} ended without a decision: ${result.exitError ?? `the executor ${why}`}${said}`, n);
    const setup = this.setupFailures.note(result);
    if (state.consecutiveFailures < 3) return undefined;
    if (setup) return { outcome: 'failed', reason: `setup problem: the agent failed the same way ${SETUP_FAILURES} times in a row before doing anything (${why})${said}` };
    return { outcome: 'failed', reason: `the executor exited non-zero without a decision 3 times in a row (last: ${why}${said})` };
  }

  /** The stall breaker (docs/overnight.md#the-stall-breaker): max_stalls iterations in a row without progress. */
  private countStalls(n: number, result: IterationResult | undefined, progressed: boolean): Ending | undefined {
    const { state, config } = this.ctx;
    if (!result || config.maxStalls === 0 || progressed) {
      state.consecutiveStalls = 0;
      this.stallNearMisses = [];
      return undefined;
    }
    state.consecutiveStalls = (state.consecutiveStalls ?? 0) + 1;
    if (result.nearMisses.length > 0) this.stallNearMisses.push(result.nearMisses.at(-1)!.text);
    if (state.consecutiveStalls >= config.maxStalls) {
      // An agent that wrote its signal wrong every time did not simply stall: say so.
      const misses = this.stallNearMisses.length;
      const nearMiss = misses > 0 ? `; ${misses} of them wrote a signal that was not one (last: \`${this.stallNearMisses.at(-1)!.slice(0, 120)}\`): the agent may think it signalled (docs/signals.md#near-misses)` : '';
      return {
        outcome: 'exhausted',
        reason: `no_progress: ${state.consecutiveStalls} iterations in a row ended with no decision and no change to the working tree, HEAD, the plan's Progress, the findings or the tasks' checks${nearMiss}`,
      };
    }
    this.ctx.warn(`iteration ${n} made no progress (${state.consecutiveStalls} of ${config.maxStalls} in a row before the run ends no_progress)`, n);
    return undefined;
  }

  /** Lines that were almost signals, quoted in the next prompt with how to write them. */
  private explainNearMisses(result: IterationResult | undefined): void {
    const misses = result?.nearMisses ?? [];
    if (misses.length === 0) return;
    const lines = misses.slice(-5).map((m) => `- line ${m.line}: \`${m.text.replace(/`/g, "'").slice(0, 160)}\` — ${m.hint}`);
    this.ctx.pendingFeedback.push(render(this.ctx.templates['feedback-near-miss'], { lines: lines.join('\n') }));
  }

  /**
   * Tool calls the agent's permissions refused: named in the next prompt; in --max-stalls
   * iterations in a row they end the run blocked, as only a person can change the permissions.
   */
  private countDenials(result: IterationResult | undefined, progressed: boolean): Ending | undefined {
    const { ctx } = this;
    const { state, config } = ctx;
    const denials = result?.denials ?? [];
    // Denials beside real work are harmless: only an iteration that got nowhere counts them.
    if (denials.length === 0 || progressed) state.consecutiveDenials = 0;
    if (denials.length === 0) return undefined;
    if (!progressed) state.consecutiveDenials = (state.consecutiveDenials ?? 0) + 1;
    const calls = denials.map((d) => `${d.tool}${d.summary ? ` (${d.summary.slice(0, 120)})` : ''}`);
    if (config.maxStalls > 0 && (state.consecutiveDenials ?? 0) >= config.maxStalls) {
      return escalate(
        ctx,
        `permission_denied: the agent's permissions refused tool calls in ${state.consecutiveDenials} iterations in a row (last: ${calls.slice(0, 5).join('; ')})`,
        { claims: [], files: [], ignored: [] },
        'the agent cannot do its work with the permissions it has: change them (its settings or command-line flags) and resume',
      );
    }
    ctx.pendingFeedback.push(render(ctx.templates['feedback-permission-denied'], { calls: calls.map((c) => `- ${c}`).join('\n') }));
    return undefined;
  }
}
