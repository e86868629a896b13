import { describe, expect, it } from 'vitest';
import { extractSection } from '../../src/plan/index.js';

const DOC = [
  '# Plan',
  '',
  '## Objective',
  'Build it.',
  '',
  '## Progress',
  '',
  '- did a',
  '### Sub-notes',
  'kept',
  '```sh',
  '# a shell comment, not a heading',
  '## nor this',
  '```',
  '',
  '## Observations ##',
  'seen b',
  '# Appendix',
  'tail',
].join('\n');

describe('extractSection', () => {
  it('returns the text under a level-2 heading up to the next heading of level <= 2', () => {
    expect(extractSection(DOC, 'Progress')).toBe(
      '- did a\n### Sub-notes\nkept\n```sh\n# a shell comment, not a heading\n## nor this\n```',
    );
  });

  it('stops at a level-1 heading and strips closing hashes from the heading', () => {
    expect(extractSection(DOC, 'Observations')).toBe('seen b');
  });

  it('matches the heading text case-insensitively, and accepts the heading written in full', () => {
    expect(extractSection(DOC, 'progress')).toBe(extractSection(DOC, 'Progress'));
    expect(extractSection(DOC, '## Progress')).toBe(extractSection(DOC, 'Progress'));
  });

  it('with a full heading of another level, matches only that level and ends at that level', () => {
    expect(extractSection(DOC, '### Progress')).toBeUndefined();
    expect(extractSection(DOC, '### Sub-notes')).toBe('kept\n```sh\n# a shell comment, not a heading\n## nor this\n```');
  });

  it('is undefined when the heading is absent, and "" when the section is empty', () => {
    expect(extractSection(DOC, 'Decisions')).toBeUndefined();
    expect(extractSection('## Progress\n\n## Observations\n', 'Progress')).toBe('');
    expect(extractSection('## Progress', 'Progress')).toBe('');
  });

  it('runs to the end of the text when no heading follows', () => {
    expect(extractSection('intro\n## Progress\nline 1\n\nline 2\n\n', 'Progress')).toBe('line 1\n\nline 2');
  });

  it('ignores a heading inside a fence, and text that only looks like a heading', () => {
    expect(extractSection('```\n## Progress\n```\nafter\n', 'Progress')).toBeUndefined();
    expect(extractSection('##Progress\nx\n', 'Progress')).toBeUndefined();
    expect(extractSection('    ## Progress\nx\n', 'Progress')).toBeUndefined();
  });

  it('does not match deeper headings by text alone', () => {
    expect(extractSection('### Progress\nx\n', 'Progress')).toBeUndefined();
  });

  it('handles CRLF line ends', () => {
    expect(extractSection('## Progress\r\na\r\nb\r\n## Next\r\n', 'Progress')).toBe('a\nb');
  });
});
