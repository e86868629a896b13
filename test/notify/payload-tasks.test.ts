import { describe, expect, it } from 'vitest';
import { basePayload, summaryOf } from '../../src/notify/payload.js';

describe('a notification of a plan with task checks', () => {
  it('says how many tasks were verified, after the outcome', () => {
    const p = { ...basePayload('ended', new Date(0), '/r'), plan: 'p', outcome: 'complete', reason: 'accepted', tasksVerified: 'tasks 3/3 verified' };
    expect(summaryOf(p)).toBe('ralph: plan p ended complete (tasks 3/3 verified): accepted');
    expect(summaryOf({ ...p, tasksVerified: null })).toBe('ralph: plan p ended complete: accepted');
  });
});
