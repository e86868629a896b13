// One edit distance and one "did you mean" for config keys, front-matter keys and signal names.
import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from '../../src/util/did-you-mean.js';

describe('editDistance', () => {
  it('counts insertions, deletions and substitutions', () => {
    expect(editDistance('', '')).toBe(0);
    expect(editDistance('kitten', 'sitting')).toBe(3);
    expect(editDistance('PLAN_COMPLETED', 'PLAN_COMPLETE')).toBe(1);
    expect(editDistance('abc', '')).toBe(3);
  });

  it('stops at the limit, and a long token against a short name costs no table', () => {
    expect(editDistance('kitten', 'sitting', 2)).toBe(2);
    const hostile = 'X'.repeat(1_000_000);
    // 1000 full tables would be 7e9 cells, far past the test's timeout: the limit must cut each one short.
    for (let i = 0; i < 1000; i++) expect(editDistance(hostile, 'BAILOUT', 3)).toBe(3);
  });
});

describe('didYouMean', () => {
  it('gives the same key in snake_case first', () => {
    expect(didYouMean('maxIterations', ['max_iterations'])).toBe('max_iterations');
    expect(didYouMean('max-iterations', ['max_iterations'])).toBe('max_iterations');
  });

  it('gives the closest known key, not the first one within two edits', () => {
    expect(didYouMean('abcd', ['abxy', 'abcx'])).toBe('abcx');
    expect(didYouMean('abcd', ['abxy', 'abcx', 'abcd_'])).toBe('abcx');
  });

  it('suggests for keys of three letters or more, nothing past two edits', () => {
    expect(didYouMean('mod', ['model'])).toBe('model');
    expect(didYouMean('mo', ['model'])).toBeUndefined();
    expect(didYouMean('phase', ['model', 'max_wait'])).toBeUndefined();
  });
});
