// docs/parser.md "Near misses": a line that carries a signal but is not one is a near_miss event,
// with what is wrong and the exact line to write; it is never acted on.
import { describe, expect, it } from 'vitest';
import { NEAR_MISS_REASONS } from '../../src/contract.js';
import { SignalParser, type ParserEvent } from '../../src/signals/index.js';
import { parseChunks, parseText, splitAt } from './helpers.js';

type NearMiss = Extract<ParserEvent, { type: 'near_miss' }>;

function nearMisses(events: readonly ParserEvent[]): NearMiss[] {
  return events.filter((e): e is NearMiss => e.type === 'near_miss');
}

/** The near miss of `line` (as line 2 of three), and that nothing in the output is a signal or claim. */
function judge(line: string): NearMiss | undefined {
  const events = parseText(`before\n${line}\nafter\n`);
  expect(events.filter((e) => e.type === 'signal' || e.type === 'claim')).toEqual([]);
  const found = nearMisses(events);
  expect(found.length).toBeLessThanOrEqual(1);
  if (found[0]) expect(found[0].line).toBe(2);
  return found[0];
}

describe('a line that carries a signal but is not one', () => {
  const table: [line: string, reason: string, correct: string | null][] = [
    // not alone on its line
    ['Done! ###PLAN_COMPLETE###', 'not_alone', '###PLAN_COMPLETE###'],
    ['###PLAN_COMPLETE### (finally)', 'not_alone', '###PLAN_COMPLETE###'],
    ['###PLAN_COMPLETE###.', 'not_alone', '###PLAN_COMPLETE###'],
    ['I will print ###BAILOUT:tired###!', 'not_alone', '###BAILOUT:tired###'],
    ["'###PLAN_COMPLETE###'", 'not_alone', '###PLAN_COMPLETE###'],
    ['"###PLAN_COMPLETE###"', 'not_alone', '###PLAN_COMPLETE###'],
    ['All done ###PLAN_COMPLETE### ###BLOCKED:x###', 'not_alone', '###PLAN_COMPLETE###'],
    // wrapped in Markdown
    ['**###PLAN_COMPLETE###**', 'markdown', '###PLAN_COMPLETE###'],
    ['`###PLAN_COMPLETE###`', 'markdown', '###PLAN_COMPLETE###'],
    ['_###PLAN_COMPLETE###_', 'markdown', '###PLAN_COMPLETE###'],
    ['- ###BLOCKED:no key###', 'markdown', '###BLOCKED:no key###'],
    ['* ###PLAN_COMPLETE###', 'markdown', '###PLAN_COMPLETE###'],
    ['1. ###PLAN_COMPLETE###', 'markdown', '###PLAN_COMPLETE###'],
    ['- [x] ###PLAN_COMPLETE###', 'markdown', '###PLAN_COMPLETE###'],
    ['> ###PLAN_COMPLETE###', 'markdown', '###PLAN_COMPLETE###'],
    ['# ###PLAN_COMPLETE###', 'markdown', '###PLAN_COMPLETE###'],
    ['## ###TEST_FAILED:web:3###', 'markdown', '###TEST_FAILED:web:3###'],
    // wrong case (malformed today too)
    ['###plan_complete###', 'wrong_case', '###PLAN_COMPLETE###'],
    ['###Bailout:tired###', 'wrong_case', '###BAILOUT:tired###'],
    ['Done: ###plan_complete###', 'wrong_case', '###PLAN_COMPLETE###'],
    // an unknown or misspelled name
    ['###PLAN_COMPLETED###', 'unknown_name', '###PLAN_COMPLETE###'],
    ['###TASK_COMPLETE###', 'unknown_name', '###PLAN_COMPLETE###'],
    ['###LOOP_COMPLETE###', 'unknown_name', '###PLAN_COMPLETE###'],
    ['###BLOCKER:no key###', 'unknown_name', '###BLOCKED:no key###'],
    ['###NOT_A_SIGNAL###', 'unknown_name', null],
    // the # marks
    ['###PLAN_COMPLETE##', 'markers', '###PLAN_COMPLETE###'],
    ['###PLAN_COMPLETE', 'markers', '###PLAN_COMPLETE###'],
    ['##PLAN_COMPLETE###', 'markers', '###PLAN_COMPLETE###'],
    ['####PLAN_COMPLETE###', 'markers', '###PLAN_COMPLETE###'],
    ['### PLAN_COMPLETE ###', 'markers', '###PLAN_COMPLETE###'],
    // malformed arguments
    ['###TEST_FAILED:widgets:three###', 'malformed', '###TEST_FAILED:{project}:{count}###'],
    ['###BAILOUT###', 'malformed', '###BAILOUT:{reason}###'],
    ['###PLAN_COMPLETE:now###', 'malformed', '###PLAN_COMPLETE###'],
    ['######', 'malformed', null],
    // the compatible claim
    ['**LOOP_COMPLETE**', 'markdown', 'LOOP_COMPLETE'],
    ['`LOOP_COMPLETE`', 'markdown', 'LOOP_COMPLETE'],
    ['Done! LOOP_COMPLETE', 'not_alone', 'LOOP_COMPLETE'],
    ['LOOP_COMPLETE.', 'not_alone', 'LOOP_COMPLETE'],
    ['LOOP_COMPLETE now', 'not_alone', 'LOOP_COMPLETE'],
  ];

  it.each(table)('%j: %s', (line, reason, correct) => {
    const miss = judge(line);
    expect(miss).toMatchObject({ type: 'near_miss', line: 2, text: line, reason, correct });
    expect(miss!.hint.length).toBeGreaterThan(20);
    if (correct !== null) expect(miss!.hint).toContain(correct);
  });

  it('covers every reason but the two for blocks left open (tested below)', () => {
    const covered = new Set(table.map((row) => row[1]));
    expect(NEAR_MISS_REASONS.filter((r) => !covered.has(r))).toEqual(['unclosed_fence', 'unclosed_observation']);
  });

  const plain: [line: string, what: string][] = [
    ['### Progress', 'a Markdown heading'],
    ['###Summary of the work', 'a heading without its space: no signal name near it'],
    ['PLAN_COMPLETE', 'a bare name'],
    ['the LOOP_COMPLETE claim is read only alone on a line', 'the claim talked about'],
    ['I will print ###BAILOUT:tired### when tired', 'a signal talked about: neither starting nor ending the line'],
    ['Then it prints (###PLAN_COMPLETE###).', "a line ending in '.' or ')' is not judged: too many lines do"],
    ['LOOP_COMPLETED', 'a longer word'],
    ['C# and F# code: a#b ## c', 'single and double #'],
    ['', 'an empty line'],
  ];
  it.each(plain)('%j (%s) is no near miss', (line) => {
    expect(judge(line)).toBeUndefined();
  });

  it('a malformed line stays malformed and is a near miss too, reported just after', () => {
    const events = parseText('###TEST_FAILED:widgets:three###\n');
    expect(events.map((e) => e.type)).toEqual(['malformed', 'near_miss']);
    expect(events[1]).toMatchObject({ line: 1, reason: 'malformed', hint: expect.stringContaining('count "three" is not an integer') });
  });

  it('quotes a long line bounded, and never a line over the line bound', () => {
    const long = `Done ${'x'.repeat(5000)} ###PLAN_COMPLETE###`;
    const miss = judge(long)!;
    expect(miss.text.length).toBeLessThanOrEqual(201);
    expect(miss.text.endsWith('…')).toBe(true);
    expect(miss.correct).toBe('###PLAN_COMPLETE###');
    const huge = parseText(`Done ###PLAN_COMPLETE### ${'y'.repeat(100)}\n`, { maxLineBytes: 50 });
    expect(huge).toEqual([]);
  });

  it('a hostile line: a long run of #, a line of many tokens (the time it takes: test/cli/parse.test.ts)', () => {
    expect(parseText(`${'#'.repeat(4096)}\n`).map((e) => e.type)).toEqual(['malformed', 'near_miss']);
    expect(parseText(`${'##a'.repeat(2000)}###\n`)).toEqual([]);
    // Only the first 8 tokens of a line are judged.
    expect(nearMisses(parseText(`${'##x. '.repeat(8)}###PLAN_COMPLETE###\n`))).toEqual([]);
    expect(nearMisses(parseText(`${'##x. '.repeat(7)}###PLAN_COMPLETE###\n`))).toMatchObject([{ reason: 'not_alone' }]);
  });

  it('a long argument is not copied into the correction', () => {
    const miss = judge(`Done ###BAILOUT:${'z'.repeat(3000)}###`)!;
    expect(miss.correct).toBe('###BAILOUT:{reason}###');
    expect(miss.hint.length).toBeLessThan(400);
  });

  it('is found whatever the chunking', () => {
    const text = Buffer.from('a\nDone! ###PLAN_COMPLETE###\r\n**LOOP_COMPLETE**\r```\n###PLAN_COMPLETE###\n');
    const whole = parseChunks([text]).events;
    expect(nearMisses(whole).map((e) => [e.line, e.reason])).toEqual([
      [2, 'not_alone'],
      [3, 'markdown'],
      [5, 'unclosed_fence'],
    ]);
    for (let i = 0; i <= text.length; i++) {
      for (let j = i; j <= text.length; j++) expect(parseChunks(splitAt(text, [i, j])).events).toEqual(whole);
    }
  });
});

describe('signals ignored inside a block that was never closed', () => {
  it('a fence never closed: each signal ignored inside it is a near miss at end()', () => {
    const events = parseText('Here is the diff:\n```diff\n+ foo\n###PLAN_COMPLETE###\n');
    expect(events.map((e) => e.type)).toEqual(['ignored', 'near_miss']);
    expect(events[1]).toMatchObject({
      line: 4,
      text: '###PLAN_COMPLETE###',
      reason: 'unclosed_fence',
      correct: '###PLAN_COMPLETE###',
      hint: expect.stringContaining('line 2'),
    });
  });

  it('a fence that is closed: its signals are only ignored', () => {
    expect(parseText('```\n###PLAN_COMPLETE###\n```\n').map((e) => e.type)).toEqual(['ignored']);
  });

  it('an observation never closed: its signals are near misses after its invalid record', () => {
    const events = parseText('<observation type="bug" severity="low">\n<title>t</title>\n###BLOCKED:no key###\n');
    expect(events.map((e) => e.type)).toEqual(['ignored', 'observation', 'near_miss']);
    expect(events[2]).toMatchObject({ line: 3, reason: 'unclosed_observation', correct: '###BLOCKED:no key###', hint: expect.stringContaining('line 1') });
  });

  it('the line to write: the signal as written, the claim, or the grammar when the arguments are too long to quote', () => {
    const misses = nearMisses(parseText(`~~~\n###TEST_FAILED:web:3###\nLOOP_COMPLETE\n###BAILOUT:${'z'.repeat(300)}###\n`));
    expect(misses.map((m) => m.correct)).toEqual(['###TEST_FAILED:web:3###', 'LOOP_COMPLETE', '###BAILOUT:{reason}###']);
    expect(misses[2]!.text.length).toBeLessThanOrEqual(201);
    expect(misses[0]!.hint).toMatch(/close the fence before the signal.*: ###TEST_FAILED:web:3###$/);
  });

  it('keeps only the last 16 of them', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `###BAILOUT:${i}###`);
    const misses = nearMisses(parseText(`\`\`\`\n${lines.join('\n')}\n`));
    expect(misses).toHaveLength(16);
    expect(misses[15]).toMatchObject({ line: 41, correct: '###BAILOUT:39###' });
  });

  it('a near miss is reported once: a new iteration (reset) forgets the open block', () => {
    const events: ParserEvent[] = [];
    const p = new SignalParser((e) => events.push(e));
    p.push('```\n###PLAN_COMPLETE###\n');
    p.reset();
    p.push('done\n');
    p.end();
    expect(events.map((e) => e.type)).toEqual(['ignored']);
  });
});

describe('resetBlocks(): a new assistant message starts with no open fence or observation', () => {
  it('a fence left open by one message does not hide the next message’s signal', () => {
    const events: ParserEvent[] = [];
    const p = new SignalParser((e) => events.push(e));
    p.push('Here:\n```\nnpm test\n###PLAN_COMPLETE###\n');
    p.resetBlocks();
    p.push('###PLAN_COMPLETE###\n');
    p.end();
    expect(events.map((e) => [e.type, e.line])).toEqual([
      ['ignored', 4],
      ['near_miss', 4],
      ['signal', 5],
    ]);
    expect(events[1]).toMatchObject({ reason: 'unclosed_fence' });
  });

  it('an observation left open is recorded as not closed before the message ended', () => {
    const events: ParserEvent[] = [];
    const p = new SignalParser((e) => events.push(e));
    p.push('<observation type="bug" severity="low">\n<title>t</title>\n');
    p.resetBlocks();
    p.push('<observation type="bug" severity="low"><title>t</title><detail>d</detail></observation>\n');
    p.end();
    expect(events).toMatchObject([
      { type: 'observation', line: 1, record: { valid: false, error: expect.stringContaining('message ended') } },
      { type: 'observation', line: 3, record: { valid: true } },
    ]);
  });

  it('a line left unterminated by the message ends with it', () => {
    const events: ParserEvent[] = [];
    const p = new SignalParser((e) => events.push(e));
    p.push('###BAILOUT:tired###');
    p.resetBlocks();
    p.push('###PLAN_COMPLETE###');
    p.end();
    expect(events.map((e) => [e.type, e.line])).toEqual([
      ['signal', 1],
      ['signal', 2],
    ]);
  });

  it('changes nothing when nothing is open', () => {
    const events: ParserEvent[] = [];
    const p = new SignalParser((e) => events.push(e));
    p.push('a\n');
    p.resetBlocks();
    p.push('###PLAN_COMPLETE###\n');
    p.end();
    expect(events).toEqual([{ type: 'signal', line: 2, name: 'PLAN_COMPLETE', class: 'complete', args: [] }]);
  });
});
