import { describe, expect, it } from 'vitest';
import { cleanText, findTags, lineIndex, maskCode } from '../../src/plan/markup.js';

describe('maskCode', () => {
  it('blanks inline code spans, keeping offsets, and leaves unmatched backticks alone', () => {
    expect(maskCode('x `<tasks>` y')).toBe('x           y');
    expect(maskCode('a ``x`y`` b ```c `d` e')).toBe('a         b ```c     e');
    expect(maskCode('plain <tasks> text')).toBe('plain <tasks> text');
  });

  it('blanks fenced blocks, indented ones included, and keeps line breaks', () => {
    const text = 'a\n      ```xml\n      <tasks>\n      ```\nb';
    const masked = maskCode(text);
    expect(masked.length).toBe(text.length);
    expect(masked.split('\n').map((l) => l.trim())).toEqual(['a', '', '', '', 'b']);
  });

  it('blanks closed HTML comments across lines, not an unclosed one', () => {
    expect(maskCode('<!-- <tasks>\n</tasks> -->x')).toBe('            \n            x');
    expect(maskCode('<!-- <tasks>')).toBe('<!-- <tasks>');
  });
});

describe('findTags', () => {
  const names = new Set(['task', 'name']);

  it('finds only the named tags, with attributes in either quote style', () => {
    const tags = findTags(`<task type="auto" id='7' wave=2><b>Map<string, number></b><name>x</name></task>`, names);
    expect(tags.map((t) => `${t.close ? '/' : ''}${t.name}`)).toEqual(['task', 'name', '/name', '/task']);
    expect(tags[0]!.attrs).toEqual({ type: 'auto', id: '7', wave: '2' });
  });

  it('turns a self-closing tag into an open and a close', () => {
    expect(findTags('<task/>', names).map((t) => t.close)).toEqual([false, true]);
  });

  it('does not take comparisons for tags', () => {
    expect(findTags('if (a <task && b> c) {}', new Set(['task']))).toHaveLength(1);
    expect(findTags('a < task > b', names)).toHaveLength(0);
  });
});

describe('cleanText', () => {
  it('drops blank edge lines and common indentation, ignoring text on the tag line', () => {
    expect(cleanText('\n    one\n      two\n    ')).toBe('one\n  two');
    expect(cleanText('first\n      second\n      third\n  ')).toBe('first\nsecond\nthird');
    expect(cleanText('a\r\n  b')).toBe('a\nb');
  });
});

describe('lineIndex', () => {
  it('maps offsets to 1-based lines from a first line', () => {
    const lineOf = lineIndex('ab\ncd\n\nef', 10);
    expect([0, 2, 3, 6, 7, 9].map(lineOf)).toEqual([10, 10, 11, 12, 13, 13]);
  });
});
