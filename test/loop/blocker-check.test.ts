import { describe, expect, it } from 'vitest';
import { checkBlocker } from '../../src/loop/blocker-check.js';

const reject = ['architectural_decision', 'Needs Credentials'];

describe('checkBlocker', () => {
  it('a claim with evidence and a reason not on the list is valid', () => {
    expect(checkBlocker({ reason: 'the staging database is down', hasEvidence: true, reject })).toEqual({ valid: true });
    expect(checkBlocker({ reason: 'anything', hasEvidence: true, reject: [] })).toEqual({ valid: true });
  });

  it('a claim without evidence is rejected, and told how to give it', () => {
    const verdict = checkBlocker({ reason: 'the staging database is down', hasEvidence: false, reject });
    expect(verdict.valid).toBe(false);
    if (!verdict.valid) {
      expect(verdict.why).toContain('BLOCKED.md');
      expect(verdict.why).toContain('<observation type="blocker">');
    }
  });

  it.each([
    'architectural_decision',
    'Architectural_Decision',
    'ARCHITECTURAL-DECISION',
    'architectural decision',
    '  architectural-decision  ',
    'architectural_decision: which database',
    'Architectural-Decision (queue vs cron)',
    'needs_credentials',
    'needs-credentials',
    'NEEDS CREDENTIALS.',
  ])('"%s" matches the reject list (case, spaces/hyphens as underscores, trailing punctuation)', (reason) => {
    const verdict = checkBlocker({ reason, hasEvidence: true, reject });
    expect(verdict.valid).toBe(false);
    if (!verdict.valid) expect(verdict.why).toMatch(/blockers\.reject/);
  });

  it.each(['architectural_decisions', 'an architectural_decision', 'needs_credentialsX', 'decision'])(
    '"%s" does not match: a listed reason must start it and end at a non-letter',
    (reason) => {
      expect(checkBlocker({ reason, hasEvidence: true, reject })).toEqual({ valid: true });
    },
  );

  it('a listed reason is rejected for being listed even without evidence: the more useful why', () => {
    const verdict = checkBlocker({ reason: 'needs credentials', hasEvidence: false, reject });
    expect(verdict.valid).toBe(false);
    if (!verdict.valid) expect(verdict.why).toContain('"Needs Credentials"');
  });
});
