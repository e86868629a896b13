// Limits as tiny rules over one context object, combined by one helper that also says which rule
// fired, so result.json names the limit that ended the run.
import { formatDuration } from '../util/duration.js';

export interface LimitContext {
  iteration: number;
  costUsd: number | null;
  elapsedMs: number;
}

export interface StopRule {
  name: 'max_iterations' | 'max_cost' | 'max_runtime';
  /** A reason when the limit is reached, else undefined. */
  check(ctx: LimitContext): string | undefined;
}

export const iterationCountIs = (max: number): StopRule => ({
  name: 'max_iterations',
  check: (c) => (c.iteration >= max ? `max_iterations reached: ${c.iteration} of ${max} iterations ran without an accepted outcome` : undefined),
});

export const costIs = (maxUsd: number): StopRule => ({
  name: 'max_cost',
  check: (c) => (c.costUsd !== null && c.costUsd >= maxUsd ? `max_cost reached: $${c.costUsd.toFixed(4)} spent of $${maxUsd}` : undefined),
});

export const runtimeIs = (maxMs: number): StopRule => ({
  name: 'max_runtime',
  check: (c) => (c.elapsedMs >= maxMs ? `max_runtime reached: ran ${formatDuration(c.elapsedMs)} of ${formatDuration(maxMs)}` : undefined),
});

export function firstLimit(rules: StopRule[], ctx: LimitContext): { rule: StopRule['name']; reason: string } | undefined {
  for (const rule of rules) {
    const reason = rule.check(ctx);
    if (reason !== undefined) return { rule: rule.name, reason };
  }
  return undefined;
}
