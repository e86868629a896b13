// Plan ids name files and git branches (docs/plans.md#plan-ids).
import { describe, expect, it } from 'vitest';
import { planIdProblem } from '../../src/plan/plan-id.js';

describe('planIdProblem', () => {
  it.each(['02-03-rate-limit', 'a.b', 'v1.2_final', 'ünïcode', 'x+y@z'])('accepts %j', (id) => {
    expect(planIdProblem(id)).toBeUndefined();
  });

  it.each(['a..b', 'a.', 'x.lock', 'v1..2.lock'])('refuses %j, which git cannot use as a branch name', (id) => {
    expect(planIdProblem(id)).toMatch(/cannot name a git branch/);
  });
});
