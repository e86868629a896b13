import { describe, expect, it } from 'vitest';
import { escapeMarkdown, markdownPrLink, strictUrl } from '../../src/util/markdown-escape.js';
import { HOSTILE_PR_URL, HOSTILE_TEXT, inspectGfm } from './gfm.js';

describe('escapeMarkdown rendered by a GFM renderer', () => {
  it('is only text in a table cell: no image, link, HTML, extra cell or mention', () => {
    const md = ['| a | b |', '|---|---|', `| ${escapeMarkdown(HOSTILE_TEXT)} | x |`, ''].join('\n');
    const got = inspectGfm(md);
    expect(got.images).toBe(0);
    expect(got.hrefs).toEqual([]);
    expect(got.rawTags.filter((t) => t !== 'br')).toEqual([]);
    expect(got.html).not.toMatch(/<code>|<strong>/);
    expect(got.rowCells).toEqual([2, 2]);
    expect(got.text).not.toMatch(/@everyone|@evil/);
    // The text itself survives, readable.
    expect(got.text.replace(/\u200b/g, '')).toContain('![x](https://evil.example/t.png) [click](javascript:alert(1)) | @everyone <img src=x onerror="alert(2)">');
  });
});

describe('strictUrl', () => {
  it('accepts https URLs of URL characters only', () => {
    expect(strictUrl('https://github.com/acme/app/pull/7')?.href).toBe('https://github.com/acme/app/pull/7');
    expect(strictUrl(' https://gitlab.example.com/a/b/-/merge_requests/3?x=1#note_2 ')?.href).toBe('https://gitlab.example.com/a/b/-/merge_requests/3?x=1#note_2');
    for (const bad of [HOSTILE_PR_URL, 'javascript:alert(1)', 'http://github.com/a/b/pull/1', 'https://u:p@github.com/a', 'https://github.com/a/b/pull/1|x', 'https://github.com/a/(b)', `https://github.com/${'a'.repeat(2_000)}`, 42, null]) {
      expect(strictUrl(bad), String(bad).slice(0, 60)).toBeNull();
    }
  });

  it('labels a PR on github.com "PR" and elsewhere by its host', () => {
    expect(markdownPrLink('https://github.com/acme/app/pull/7')).toBe('[PR](https://github.com/acme/app/pull/7)');
    expect(markdownPrLink('https://gitlab.example.com/a/b/-/merge_requests/3')).toBe('[gitlab.example.com](https://gitlab.example.com/a/b/-/merge_requests/3)');
    expect(markdownPrLink(HOSTILE_PR_URL)).toBeNull();
  });
});
