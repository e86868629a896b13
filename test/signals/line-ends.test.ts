// docs/parser.md "Line ends": LF, CRLF and a lone CR each end a line; a CR at the end of one chunk
// and an LF at the start of the next are one line end.
import { describe, expect, it } from 'vitest';
import type { ParserEvent } from '../../src/signals/index.js';
import { parseChunks, parseText, splitAt } from './helpers.js';

function brief(events: readonly ParserEvent[]): [string, number, string?][] {
  return events.map((e) => [e.type, e.line, 'name' in e ? e.name : e.type === 'observation' ? String(e.record.valid) : undefined]);
}

/** Events and the line count, for the text whole and cut at every pair of points. */
function sameAtEverySplit(text: string): void {
  const bytes = Buffer.from(text);
  const whole = parseChunks([bytes]);
  const expected = { events: whole.events, line: whole.parser.currentLine };
  for (let i = 0; i <= bytes.length; i++) {
    for (let j = i; j <= bytes.length; j++) {
      const cut = parseChunks(splitAt(bytes, [i, j]));
      expect({ events: cut.events, line: cut.parser.currentLine }, `cut at ${i}, ${j}`).toEqual(expected);
    }
  }
}

describe('a lone CR ends a line', () => {
  it('a signal after progress-bar output written with CRs is read, on its own line number', () => {
    expect(brief(parseText('progress 10%\rprogress 100%\r###PLAN_COMPLETE###\rdone\n'))).toEqual([['signal', 3, 'PLAN_COMPLETE']]);
  });

  it('a signal ended by a lone CR, then more text on the "same" line', () => {
    expect(brief(parseText('###BLOCKED:no key###\rthe rest\n'))).toEqual([['signal', 1, 'BLOCKED']]);
    expect(parseText('###BLOCKED:no key###\rthe rest\n')).toMatchObject([{ args: ['no key'] }]);
  });

  it('a CR inside a signal splits it into two lines, neither of them a signal', () => {
    expect(parseText('###BAILOUT:a\rb###\n').filter((e) => e.type === 'signal' || e.type === 'malformed')).toEqual([]);
  });

  it('CRLF stays one line end, and CR CR LF is two', () => {
    expect(brief(parseText('a\r\n###PLAN_COMPLETE###\r\n'))).toEqual([['signal', 2, 'PLAN_COMPLETE']]);
    expect(brief(parseText('a\r\r\n###PLAN_COMPLETE###\r\n'))).toEqual([['signal', 3, 'PLAN_COMPLETE']]);
  });

  it('a CR ending one chunk and an LF starting the next are one line end', () => {
    const parsed = parseChunks(['a\r', '\n###PLAN_COMPLETE###\r', '\n']);
    expect(brief(parsed.events)).toEqual([['signal', 2, 'PLAN_COMPLETE']]);
    expect(parsed.parser.currentLine).toBe(3);
  });

  it('a CR ending one chunk followed by anything else is a line end', () => {
    expect(brief(parseChunks(['x\r', '###PLAN_COMPLETE###\n']).events)).toEqual([['signal', 2, 'PLAN_COMPLETE']]);
    expect(brief(parseChunks(['###PLAN_COMPLETE###\r', 'more\n']).events)).toEqual([['signal', 1, 'PLAN_COMPLETE']]);
    // An empty chunk in between decides nothing.
    expect(brief(parseChunks(['x\r', '', '\n###PLAN_COMPLETE###\n']).events)).toEqual([['signal', 2, 'PLAN_COMPLETE']]);
  });

  it('a CR at the very end of the output ends the last line', () => {
    const parsed = parseChunks(['###BAILOUT:later###\r']);
    expect(brief(parsed.events)).toEqual([['signal', 1, 'BAILOUT']]);
    expect(parsed.parser.currentLine).toBe(2);
  });

  it('fences and observations see lone-CR lines as lines', () => {
    expect(brief(parseText('```\r###PLAN_COMPLETE###\r```\r###BLOCKED:x###\r'))).toEqual([
      ['ignored', 2, 'PLAN_COMPLETE'],
      ['signal', 4, 'BLOCKED'],
    ]);
    const obs = '<observation type="bug" severity="low">\r<title>t</title>\r<detail>d</detail>\r</observation>\r###PLAN_COMPLETE###\r';
    expect(brief(parseText(obs))).toEqual([
      ['observation', 1, 'true'],
      ['signal', 5, 'PLAN_COMPLETE'],
    ]);
  });

  it('an over-long line ended by a lone CR is cut, and the next line is still read', () => {
    const parsed = parseChunks(['aaaaaaaaaaaa\r###PLAN_COMPLETE###\r'], { maxLineBytes: 20 });
    expect(brief(parsed.events)).toEqual([['signal', 2, 'PLAN_COMPLETE']]);
    const long = parseChunks(['a'.repeat(30), '\r###PLAN_COMPLETE###\r'], { maxLineBytes: 20 });
    expect(brief(long.events)).toEqual([['signal', 2, 'PLAN_COMPLETE']]);
    expect(long.parser.cutLines).toBe(1);
    expect(long.parser.cutBytes).toBe(10);
  });

  it('every split of mixed line ends gives what the whole gives', () => {
    sameAtEverySplit('a\r###BLOCKED:x###\r\n```\r\r###PLAN_COMPLETE###\r```\r\n<observation type="bug" severity="low">\r<title>t</title><detail>d</detail>\r</observation>\rLOOP_COMPLETE\r');
  });

  it('an observation keeps its lone CRs as written, however it is chunked', () => {
    const text = '<observation type="nope" severity="low">\r<title>t</title>\r</observation>\n';
    const whole = parseText(text);
    expect(whole).toMatchObject([{ type: 'observation', record: { valid: false, raw: text.slice(0, -1) } }]);
    for (let i = 0; i <= text.length; i++) expect(parseChunks(splitAt(Buffer.from(text), [i])).events).toEqual(whole);
  });
});
