// Receipts (docs/files.md#receipts): what each iteration took (time, tokens, cost) and what came
// of it (the decision, the checks, the rejection), and per task what it took to first pass.
import type { TokenUsage } from '../executors/types.js';
import { estimateCost, roundUsd } from './price-table.js';
import type { CheckResult } from './checks.js';
import type { TaskState } from './task-checks.js';
import type { IterationReceipt, TaskReceipt } from './types.js';

export interface ReceiptInput {
  iteration: number;
  durationMs: number;
  tokens: TokenUsage;
  /** As reported by the agent; null: none. */
  costUsd: number | null;
  /** The price table's key: the stream format, or `anthropic`. */
  priceKey: string;
  decision: string;
  checks: CheckResult[];
  rejection: string | null;
}

const anyTokens = (t: TokenUsage) => t.input + t.output + t.cacheRead + t.cacheWrite > 0;

export function iterationReceipt(input: ReceiptInput): IterationReceipt {
  let costUsd = input.costUsd;
  let costEstimated = false;
  if (costUsd === null && anyTokens(input.tokens)) {
    const estimate = estimateCost(input.priceKey, input.tokens);
    if (estimate !== undefined) {
      costUsd = estimate;
      costEstimated = true;
    }
  }
  // Outputs can be long: the receipt keeps the verdict, the transcript and events keep the rest.
  const checks = input.checks.map((c) => ({ ...c, ...(c.evidence !== undefined ? { evidence: c.evidence.slice(-1_000) } : {}) }));
  return { iteration: input.iteration, durationMs: input.durationMs, tokens: input.tokens, costUsd, costEstimated, decision: input.decision, checks, rejection: input.rejection };
}

/** Each task with the iterations and cost it took, up to the iteration where it first passed. */
export function taskReceipts(tasks: readonly TaskState[], receipts: readonly IterationReceipt[]): TaskReceipt[] {
  return tasks.map((task) => {
    const upTo = task.firstPassedIteration;
    if (upTo === null) return { ...task, iterations: null, costUsd: null, costEstimated: false };
    const spent = receipts.filter((r) => r.iteration <= upTo);
    const unknown = spent.some((r) => r.costUsd === null);
    const costUsd = unknown ? null : roundUsd(spent.reduce((sum, r) => sum + (r.costUsd ?? 0), 0));
    return { ...task, iterations: upTo, costUsd, costEstimated: spent.some((r) => r.costEstimated) };
  });
}
