// docs/signals.md#code-fences: a signal inside a fenced code block is *ignored* and never acted on; fences follow
// CommonMark, carry across chunks, run to the end of the iteration when unclosed, reset per iteration.
import { describe, expect, it } from 'vitest';
import { SignalParser, type ParserEvent } from '../../src/signals/index.js';
import { parseChunks, parseText, signalsOf } from './helpers.js';

const SIG = '###PLAN_COMPLETE###';

/** What happens to a signal on the line after `open`, and to one after `close`. */
function around(open: string, close: string) {
  return signalsOf(parseText(`${open}\n${SIG}\n${close}\n${SIG}\n`)).map((e) => `${e.type}@${e.line}`);
}

describe('fences open, and a signal inside is ignored', () => {
  const table: [open: string, close: string, what: string][] = [
    ['```', '```', 'backticks'],
    ['~~~', '~~~', 'tildes'],
    ['````', '````', 'four backticks'],
    ['~~~~~', '~~~~~~', 'a longer closing fence closes'],
    ['```bash', '```', 'an info string'],
    ['``` ts title="x.ts"', '```', 'an info string with spaces'],
    ['~~~ info with `backticks`', '~~~', 'a tilde info string may hold backticks'],
    [' ```', '```', 'indented 1 space'],
    ['   ```', '```', 'indented 3 spaces'],
    ['```', '   ```', 'a closing fence indented 3 spaces'],
    ['```', '```   ', 'a closing fence with trailing spaces'],
    ['```\r', '```\r', 'CRLF fences'],
  ];
  it.each(table)('%j … %j (%s)', (open, close) => {
    expect(around(open, close)).toEqual(['ignored@2', 'signal@4']);
  });

  it('reports what was ignored and why', () => {
    expect(parseText('```\n  ###TEST_FAILED:web:2###  \nLOOP_COMPLETE\n```\n')).toEqual([
      { type: 'ignored', line: 2, name: 'TEST_FAILED', args: ['web', '2'], text: '###TEST_FAILED:web:2###', why: 'inside a code fence' },
      { type: 'ignored', line: 3, name: 'LOOP_COMPLETE', args: [], text: 'LOOP_COMPLETE', why: 'inside a code fence' },
    ]);
  });

  it('never reports a malformed signal or an observation inside a fence', () => {
    const text = '```xml\n###NOPE###\n<observation type="bug" severity="low"><title>t</title><detail>d</detail></observation>\n```\n';
    expect(parseText(text)).toEqual([]);
  });
});

describe('lines that do not close a fence', () => {
  const table: [open: string, notClose: string, what: string][] = [
    ['````', '```', 'a shorter closing fence'],
    ['~~~~', '~~~', 'a shorter tilde fence'],
    ['```', '~~~', 'the other character (tilde)'],
    ['~~~', '```', 'the other character (backtick)'],
    ['```', '```js', 'a closing fence may not have an info string'],
    ['```', '    ```', 'a closing fence indented 4 spaces'],
    ['```', '`` `', 'a broken run'],
  ];
  it.each(table)('%j is not closed by %j (%s)', (open, notClose) => {
    const events = signalsOf(parseText(`${open}\n${notClose}\n${SIG}\n${open}\n${SIG}\n`));
    expect(events.map((e) => `${e.type}@${e.line}`)).toEqual(['ignored@3', 'signal@5']);
  });
});

describe('lines that do not open a fence', () => {
  const table: [line: string, what: string][] = [
    ['``', 'two backticks'],
    ['~~', 'two tildes'],
    ['    ```', 'indented 4 spaces'],
    ['\t```', 'indented by a tab (4 columns)'],
    ['``` a`b', 'a backtick info string holding a backtick'],
    ['text ```', 'text before the backticks'],
    ['`~~', 'mixed characters'],
  ];
  it.each(table)('%j (%s)', (line) => {
    expect(signalsOf(parseText(`${line}\n${SIG}\n`))).toEqual([{ type: 'signal', line: 2, name: 'PLAN_COMPLETE', args: [] }]);
  });
});

describe('an unclosed fence', () => {
  it('runs to the end of the stream', () => {
    const text = `${SIG}\n\`\`\`\n${SIG}\n\n\nmore\n###BLOCKED:x###\nLOOP_COMPLETE`;
    expect(signalsOf(parseText(text)).map((e) => `${e.type}@${e.line}`)).toEqual([
      'signal@1',
      'ignored@3',
      'ignored@7',
      'ignored@8',
    ]);
  });
});

describe('fence state across chunks and iterations', () => {
  it('carries across chunks, including a fence line split in the middle', () => {
    const chunks = ['text\n`', '``ba', 'sh\n###PLAN', '_COMPLETE###\n~~~\n``', '`\n', SIG, '\n'];
    expect(signalsOf(parseChunks(chunks).events).map((e) => `${e.type}@${e.line}`)).toEqual(['ignored@3', 'signal@6']);
  });

  it('is carried over from one push to the next with a whole line per push', () => {
    const events: ParserEvent[] = [];
    const p = new SignalParser((e) => events.push(e));
    for (const line of ['```', SIG, '```', SIG]) p.push(`${line}\n`);
    p.end();
    expect(signalsOf(events).map((e) => `${e.type}@${e.line}`)).toEqual(['ignored@2', 'signal@4']);
  });

  it('resets between iterations with reset()', () => {
    const events: ParserEvent[] = [];
    const p = new SignalParser((e) => events.push(e));
    p.push('one\n````\n');
    p.end();
    p.reset();
    p.push(`${SIG}\n`);
    p.end();
    expect(events).toEqual([{ type: 'signal', line: 1, name: 'PLAN_COMPLETE', class: 'complete', args: [] }]);
  });

  it('reset() mid-stream drops a fence that was open and restarts line numbers', () => {
    const events: ParserEvent[] = [];
    const p = new SignalParser((e) => events.push(e));
    p.push('a\nb\n```\n');
    p.reset();
    p.push(`x\n${SIG}\n`);
    p.end();
    expect(signalsOf(events)).toEqual([{ type: 'signal', line: 2, name: 'PLAN_COMPLETE', args: [] }]);
  });
});
