// One decision per iteration (docs/signals.md#priority): blocked > failed > bailout > complete;
// within a class the last one wins. Pure, so it is tested by table.
import { CLASS_PRIORITY, type SignalClass } from '../contract.js';

/** A signal or claim as weighed: output signals in stream order, then file claims. */
export interface Weighed {
  class: SignalClass;
  /** Signal name, LOOP_COMPLETE, or the claim's file name. */
  name: string;
  args: string[];
  /** Where it came from: 'stdout', 'stderr', a file name, 'checkbox', 'recovery'. */
  source: string;
}

export type Decision =
  | { kind: 'none' }
  | { kind: 'complete'; name: string; source: string }
  | { kind: 'bailout'; reason: string; source: string }
  | { kind: 'failed'; name: string; args: string[]; reason: string; source: string }
  | { kind: 'blocked'; reason: string; source: string };

export function decide(items: readonly Weighed[]): Decision {
  let best: Weighed | undefined;
  for (const item of items) {
    if (!best || CLASS_PRIORITY[item.class] >= CLASS_PRIORITY[best.class]) best = item;
  }
  if (!best) return { kind: 'none' };
  switch (best.class) {
    case 'complete':
      return { kind: 'complete', name: best.name, source: best.source };
    case 'bailout':
      return { kind: 'bailout', reason: best.args[0] ?? '', source: best.source };
    case 'failed':
      return { kind: 'failed', name: best.name, args: best.args, reason: `${best.name}: ${best.args.join(':')}`, source: best.source };
    case 'blocked':
      return { kind: 'blocked', reason: best.args[0] ?? '', source: best.source };
    default: {
      const never: never = best.class;
      throw new Error(`unknown signal class ${String(never)}`);
    }
  }
}
