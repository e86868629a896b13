// docs/signals.md#signal-grammar, the grammar of one line: signals, malformed signals, plain text, LOOP_COMPLETE.
import { describe, expect, it } from 'vitest';
import { SIGNAL_GRAMMAR, SIGNAL_NAMES } from '../../src/contract.js';
import { parseText } from './helpers.js';

/** The one event a line produces, in the shape `ralph parse` prints it (or undefined: plain text). */
function one(line: string) {
  const events = parseText(`before\n${line}\nafter\n`);
  expect(events.length).toBeLessThanOrEqual(1);
  const e = events[0];
  if (e) expect(e.line).toBe(2);
  return e;
}

describe('valid signals: every name of the contract', () => {
  const table: [line: string, name: string, cls: string, args: string[]][] = [
    ['###PLAN_COMPLETE###', 'PLAN_COMPLETE', 'complete', []],
    ['###BAILOUT:context is getting long###', 'BAILOUT', 'bailout', ['context is getting long']],
    ['###TASK_FAILED:Task 2: token bucket###', 'TASK_FAILED', 'failed', ['Task 2: token bucket']],
    ['###PLAN_FAILED:npm test###', 'PLAN_FAILED', 'failed', ['npm test']],
    ['###BUILD_FAILED:widgets###', 'BUILD_FAILED', 'failed', ['widgets']],
    ['###TEST_FAILED:widgets:3###', 'TEST_FAILED', 'failed', ['widgets', '3']],
    ['###TEST_FAILED:widgets:0###', 'TEST_FAILED', 'failed', ['widgets', '0']],
    // The count is the last field: a project name may itself hold colons.
    ['###TEST_FAILED:pkg:core:12###', 'TEST_FAILED', 'failed', ['pkg:core', '12']],
    ['###BLOCKED:need the staging API key###', 'BLOCKED', 'blocked', ['need the staging API key']],
    ['###BAILOUT:café — naïve ✓ 日本###', 'BAILOUT', 'bailout', ['café — naïve ✓ 日本']],
    ['###BLOCKED:see https://example.com/a?b=c&d###', 'BLOCKED', 'blocked', ['see https://example.com/a?b=c&d']],
  ];

  it('covers every signal name of the contract', () => {
    expect(new Set(table.map((row) => row[1]))).toEqual(new Set(SIGNAL_NAMES));
  });

  it.each(table)('%s → %s %j', (line, name, cls, args) => {
    expect(one(line)).toEqual({ type: 'signal', line: 2, name, class: cls, args });
    expect(SIGNAL_GRAMMAR[name as keyof typeof SIGNAL_GRAMMAR].class).toBe(cls);
  });
});

describe('malformed: starts and ends with ### but does not fit the table', () => {
  const table: [line: string, what: string][] = [
    ['###UNKNOWN_SIGNAL###', 'unknown name'],
    ['###DONE###', 'unknown name'],
    ['###LOOP_COMPLETE###', 'LOOP_COMPLETE is a claim line, not a ### signal'],
    ['###plan_complete###', 'lowercase name'],
    ['###Bailout:tired###', 'mixed-case name'],
    ['###blocked:no key###', 'lowercase name with argument'],
    ['###BAILOUT###', 'missing argument'],
    ['###TASK_FAILED###', 'missing argument'],
    ['###PLAN_FAILED###', 'missing argument'],
    ['###BUILD_FAILED###', 'missing argument'],
    ['###BLOCKED###', 'missing argument'],
    ['###BAILOUT:###', 'empty argument'],
    ['###TASK_FAILED:###', 'empty argument'],
    ['###BLOCKED:###', 'empty argument'],
    ['###BAILOUT:a#b###', 'argument with #'],
    ['###BLOCKED:#1 issue###', 'argument with #'],
    ['###TASK_FAILED:task ####', 'argument ending in #'],
    ['###PLAN_COMPLETE:now###', 'PLAN_COMPLETE with an argument'],
    ['###PLAN_COMPLETE:###', 'PLAN_COMPLETE with an empty argument'],
    ['###TEST_FAILED:widgets:three###', 'non-integer count'],
    ['###TEST_FAILED:widgets:1.5###', 'non-integer count'],
    ['###TEST_FAILED:widgets:3x###', 'non-integer count'],
    ['###TEST_FAILED:widgets###', 'no count'],
    ['###TEST_FAILED:widgets:###', 'empty count'],
    ['###TEST_FAILED::3###', 'empty project'],
    ['###TEST_FAILED###', 'no arguments at all'],
    ['######', 'nothing between the fences'],
    ['#######', 'a lone #'],
    ['###PLAN_COMPLETE####', 'one # too many at the end'],
    ['####PLAN_COMPLETE###', 'one # too many at the start'],
    ['### PLAN_COMPLETE ###', 'spaces inside the fences'],
    ['###BAILOUT:a\rb###', 'a carriage return inside the argument'],
  ];

  it.each(table)('%j (%s)', (line) => {
    const e = one(line);
    expect(e).toMatchObject({ type: 'malformed', line: 2 });
    if (e?.type === 'malformed') expect(e.why.length).toBeGreaterThan(0);
  });

  it('is reported with spaces around it too, and never as a signal', () => {
    expect(one('  \t###TEST_FAILED:widgets:many###  ')).toMatchObject({ type: 'malformed', line: 2 });
  });
});

describe('plain text: no event', () => {
  const table: [line: string, what: string][] = [
    ['Done: ###PLAN_COMPLETE###', 'text before'],
    ['###PLAN_COMPLETE### (finally)', 'text after'],
    ['I will print ###BAILOUT:tired### when tired', 'text on both sides'],
    ['`###PLAN_COMPLETE###`', 'inline code'],
    ['> ###PLAN_COMPLETE###', 'quoted'],
    ['- ###BLOCKED:no key###', 'list item'],
    ['"###PLAN_COMPLETE###"', 'quoted string'],
    ['###PLAN_COMPLETE##', 'two closing hashes'],
    ['##PLAN_COMPLETE###', 'two opening hashes'],
    ['## PLAN_COMPLETE ##', 'markdown-ish'],
    ['### Progress', 'a markdown heading'],
    ['# ###PLAN_COMPLETE###', 'a heading holding a signal'],
    ['PLAN_COMPLETE', 'a bare name'],
    ['', 'an empty line'],
    ['   \t  ', 'only blanks'],
  ];
  it.each(table)('%j (%s)', (line) => {
    expect(one(line)).toBeUndefined();
  });
});

describe('spaces, tabs and line ends around a signal', () => {
  const table: [input: string, what: string][] = [
    ['  ###PLAN_COMPLETE###  \n', 'spaces around'],
    ['\t###PLAN_COMPLETE###\t\n', 'tabs around'],
    [' \t \t###PLAN_COMPLETE### \t \n', 'spaces and tabs mixed'],
    ['        ###PLAN_COMPLETE###\n', 'indented 8 spaces (not a code block: only fences count)'],
    ['###PLAN_COMPLETE###\r\n', 'CRLF'],
    ['  ###PLAN_COMPLETE###  \r\n', 'spaces then CRLF'],
    ['###PLAN_COMPLETE###\r', 'a trailing \\r at the end of the stream'],
    ['###PLAN_COMPLETE###', 'no line end at the end of the stream'],
  ];
  it.each(table)('%j (%s) is a signal', (input) => {
    expect(parseText(input)).toEqual([{ type: 'signal', line: 1, name: 'PLAN_COMPLETE', class: 'complete', args: [] }]);
  });

  it('keeps an argument exactly, CRLF or not', () => {
    const events = parseText('###BLOCKED:no key###\r\n###TEST_FAILED:web:2###\r\n');
    expect(events).toEqual([
      { type: 'signal', line: 1, name: 'BLOCKED', class: 'blocked', args: ['no key'] },
      { type: 'signal', line: 2, name: 'TEST_FAILED', class: 'failed', args: ['web', '2'] },
    ]);
  });

  it('counts lines the same with CRLF and LF line ends', () => {
    const lf = ['one', 'two', '###BAILOUT:x###', '', 'LOOP_COMPLETE', '###NOPE###'].join('\n');
    const crlf = lf.replaceAll('\n', '\r\n');
    const expected = [
      { type: 'signal', line: 3, name: 'BAILOUT', class: 'bailout', args: ['x'] },
      { type: 'claim', line: 5, name: 'LOOP_COMPLETE' },
      { type: 'malformed', line: 6 },
    ];
    expect(parseText(lf)).toMatchObject(expected);
    expect(parseText(crlf)).toMatchObject(expected);
  });
});

describe('LOOP_COMPLETE: a completion claim', () => {
  const claims: [input: string, what: string][] = [
    ['LOOP_COMPLETE\n', 'alone'],
    ['   LOOP_COMPLETE   \n', 'spaces around'],
    ['\tLOOP_COMPLETE\t\n', 'tabs around'],
    ['LOOP_COMPLETE\r\n', 'CRLF'],
    ['LOOP_COMPLETE', 'no line end at the end of the stream'],
  ];
  it.each(claims)('%j (%s) is a claim', (input) => {
    expect(parseText(input)).toEqual([{ type: 'claim', line: 1, name: 'LOOP_COMPLETE' }]);
  });

  const plain: [line: string, what: string][] = [
    ['LOOP_COMPLETE.', 'punctuation'],
    ['LOOP_COMPLETE now', 'text after'],
    ['not yet LOOP_COMPLETE', 'text before'],
    ['`LOOP_COMPLETE`', 'inline code'],
    ['loop_complete', 'lowercase'],
    ['LOOP_COMPLETED', 'longer word'],
    ['LOOP_COMPLET', 'shorter word'],
  ];
  it.each(plain)('%j (%s) is nothing', (line) => {
    expect(one(line)).toBeUndefined();
  });
});

describe('line numbers', () => {
  it('are 1-based and count every line end', () => {
    const text = '\n\nplain\n###PLAN_COMPLETE###\n\n\n###BLOCKED:x###\nLOOP_COMPLETE\n';
    expect(parseText(text).map((e) => [e.type, e.line])).toEqual([
      ['signal', 4],
      ['signal', 7],
      ['claim', 8],
    ]);
  });
});
