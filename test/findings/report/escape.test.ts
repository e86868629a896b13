import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml, escapeMarkdown, jsonForScript, markdownFence, safeHttpsUrl } from '../../../src/findings/report/index.js';

describe('escapeHtml', () => {
  it('leaves no markup characters', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = escapeHtml(s);
        expect(out).not.toMatch(/[<>"']/);
        // Every & starts one of our entities.
        expect(out.replace(/&(amp|lt|gt|quot|#39);/g, '')).not.toContain('&');
      }),
    );
  });
});

describe('jsonForScript', () => {
  it('round-trips and cannot close the script element or break a JS line', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string({ unit: 'binary' }), (v, s) => {
        const value = { v, s: `${s}</script><!--\u2028\u2029&` };
        const out = jsonForScript(value);
        expect(out).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});

describe('escapeMarkdown', () => {
  it('stays on one line with no unescaped table pipe, backtick, bracket, HTML or mention', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const out = escapeMarkdown(s);
        expect(out).not.toMatch(/[\n\r\u2028\u2029]/);
        // Only our own <br> may appear as a tag.
        expect(out.replace(/<br>/g, '')).not.toMatch(/[<>]/);
        // Every special character is preceded by an (unescaped) backslash.
        const unescaped = /(^|[^\\])(\\\\)*[|`[\]#*_!~$]/;
        expect(out).not.toMatch(unescaped);
        expect(out).not.toMatch(/@[^\u200b]/);
      }),
    );
  });

  it('escapes the usual injections', () => {
    expect(escapeMarkdown('# x | y')).toBe('\\# x \\| y');
    expect(escapeMarkdown('[a](javascript:alert(1))')).toBe('\\[a\\]\\(javascript:alert\\(1\\)\\)');
    expect(escapeMarkdown('a\nb')).toBe('a<br>b');
    expect(escapeMarkdown('<script>&')).toBe('&lt;script&gt;&amp;');
    expect(escapeMarkdown('@everyone')).toBe('@\u200beveryone');
  });
});

describe('markdownFence', () => {
  it('uses a fence longer than any backtick run in the text', () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        const out = markdownFence(s);
        const lines = out.split('\n');
        const fence = lines[0]!;
        expect(lines.at(-1)).toBe(fence);
        const inner = lines.slice(1, -1);
        expect(inner.some((l) => /^ {0,3}`+\s*$/.test(l) && l.trim().length >= fence.length)).toBe(false);
      }),
    );
    expect(markdownFence('a ``` b ```` c').startsWith('`````\n')).toBe(true);
  });
});

describe('safeHttpsUrl', () => {
  it('accepts https only, and normalises', () => {
    expect(safeHttpsUrl('https://github.com/o/r/pull/1')).toBe('https://github.com/o/r/pull/1');
    expect(safeHttpsUrl(' https://x.test/a"b<c ')).toBe('https://x.test/a%22b%3Cc');
    for (const bad of ['javascript:alert(1)', 'JAVASCRIPT:alert(1)', 'http://x.test', 'data:text/html,hi', '//x.test', 'https://u:p@x.test/', 'not a url', 42, null]) {
      expect(safeHttpsUrl(bad)).toBeNull();
    }
  });
});
