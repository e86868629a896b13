// A BLOCKED claim escalates to a person only when it carries evidence and its reason is not one
// the plan says the agent must resolve itself (docs/signals.md#blocked).

export interface BlockerInput {
  reason: string;
  /** A BLOCKED.md appeared, or a valid <observation type="blocker"> arrived, in the same iteration. */
  hasEvidence: boolean;
  reject: string[];
}

export type BlockerVerdict = { valid: true } | { valid: false; why: string };

function normalise(reason: string): string {
  return reason.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

export function checkBlocker({ reason, hasEvidence, reject }: BlockerInput): BlockerVerdict {
  const mine = normalise(reason);
  const listed = reject.find((r) => {
    const theirs = normalise(r);
    return theirs !== '' && (mine === theirs || (mine.startsWith(theirs) && /^[^a-z0-9]/.test(mine.slice(theirs.length))));
  });
  if (listed !== undefined) {
    return {
      valid: false,
      why: `the plan does not accept "${listed}" as a blocker (blockers.reject): decide it yourself, note the decision as an <observation type="assumption">, and go on`,
    };
  }
  if (!hasEvidence) {
    return {
      valid: false,
      why: 'a blocker needs evidence: write BLOCKED.md (reason on the first line, then what you tried) or an <observation type="blocker"> in the same turn, or keep working',
    };
  }
  return { valid: true };
}
