// docs/findings.md#observations: <observation> elements become findings records, valid or not; agent text is
// untrusted (no entity expansion, no prototype pollution, bounded size); signals inside are ignored.
import { describe, expect, it } from 'vitest';
import { ACTIONS, OBSERVATION_TYPES, SEVERITIES } from '../../src/contract.js';
import { SignalParser, type ParserEvent } from '../../src/signals/index.js';
import type { ObservationRecord } from '../../src/signals/observation.js';
import { parseChunks, parseText, splitAt } from './helpers.js';

// Spelled out from docs/findings.md#observations on purpose: the test checks the specification, not the constants.
const TYPES = [
  'bug', 'stub', 'api-issue', 'insight', 'blocker', 'technical-debt', 'assumption', 'scope-creep',
  'dependency', 'questionable', 'already-complete', 'checkpoint-automated', 'tooling-friction',
  'test-failed', 'test-infrastructure', 'manual-checkpoint-deferred',
];
const SEVS = ['critical', 'high', 'medium', 'low', 'info'];
const ACTS = ['needs-fix', 'needs-implementation', 'needs-plan', 'needs-investigation', 'needs-documentation', 'needs-human-verify', 'none'];

function obs(attrs: string, body: string): string {
  return `<observation ${attrs}>${body}</observation>`;
}

function records(events: readonly ParserEvent[]): (ObservationRecord & { line: number })[] {
  return events.flatMap((e) => (e.type === 'observation' ? [{ line: e.line, ...e.record }] : []));
}

function only(text: string): ObservationRecord & { line: number } {
  const events = parseText(text);
  expect(events.map((e) => e.type)).toEqual(['observation']);
  return records(events)[0]!;
}

const FULL = [
  'Looking at the bucket code.',
  '<observation type="bug" severity="high">',
  '  <title>Refill overflows capacity</title>',
  '  <detail>tokens exceed capacity after a long idle period</detail>',
  '  <file>src/rate-limit/bucket.ts</file>',
  '  <action>needs-fix</action>',
  '</observation>',
  'Moving on.',
  '',
].join('\n');

describe('valid observations', () => {
  it('the contract lists match the constants the code uses', () => {
    expect([...OBSERVATION_TYPES]).toEqual(TYPES);
    expect([...SEVERITIES]).toEqual(SEVS);
    expect([...ACTIONS]).toEqual(ACTS);
  });

  it('records every field, with the line where the element opened', () => {
    expect(only(FULL)).toMatchObject({
      line: 2,
      valid: true,
      type: 'bug',
      severity: 'high',
      title: 'Refill overflows capacity',
      detail: 'tokens exceed capacity after a long idle period',
      file: 'src/rate-limit/bucket.ts',
      action: 'needs-fix',
    });
  });

  // Every value of each enum appears at least once.
  const rows = TYPES.map((type, i) => [type, SEVS[i % SEVS.length]!, ACTS[i % ACTS.length]!] as const);
  it.each(rows)('type=%s severity=%s action=%s is valid', (type, severity, action) => {
    const r = only(obs(`type="${type}" severity="${severity}"`, `<title>T</title><detail>D</detail><action>${action}</action>`));
    expect(r).toMatchObject({ valid: true, type, severity, action, title: 'T', detail: 'D', file: null });
  });

  it('file and action are optional; action defaults to none', () => {
    const r = only(obs('type="insight" severity="info"', '<title>t</title><detail>d</detail>'));
    expect(r).toMatchObject({ valid: true, type: 'insight', severity: 'info', title: 't', detail: 'd', file: null, action: 'none' });
  });

  it('accepts attributes in either order, single quotes, and an opening tag over several lines', () => {
    const r = only("<observation\n   severity='low'\n   type='stub'\n>\n<detail>d</detail>\n<title>t</title>\n</observation>\n");
    expect(r).toMatchObject({ line: 1, valid: true, type: 'stub', severity: 'low', title: 't', detail: 'd' });
  });

  it('spans many lines; the detail keeps its inner lines', () => {
    const r = only('<observation type="assumption" severity="medium">\n<title>\n  Multi\n</title>\n<detail>first line\nsecond line\n</detail>\n</observation>\n');
    expect(r).toMatchObject({ valid: true, title: 'Multi' });
    expect(r.detail).toContain('first line');
    expect(r.detail).toContain('second line');
  });

  it('decodes the predefined entities once, and character references', () => {
    const r = only(obs('type="bug" severity="low"', '<title>A &amp; B &lt;3 &gt; &quot;q&quot; &apos;s&apos;</title><detail>&amp;lt; stays &#65;&#x42;</detail>'));
    expect(r).toMatchObject({ valid: true, title: 'A & B <3 > "q" \'s\'', detail: '&lt; stays AB' });
  });

  it('opens mid-line after text, and two can share one line', () => {
    const a = obs('type="bug" severity="low"', '<title>first</title><detail>d1</detail>');
    const b = obs('type="stub" severity="info"', '<title>second</title><detail>d2</detail>');
    const events = parseText(`x\nFound: ${a} and ${b} done\n###PLAN_COMPLETE###\n`);
    expect(events.map((e) => e.type)).toEqual(['observation', 'observation', 'signal']);
    expect(records(events)).toMatchObject([
      { line: 2, valid: true, title: 'first' },
      { line: 2, valid: true, title: 'second' },
    ]);
  });

  it('is the same record however the text is split, down to every byte', () => {
    const input = Buffer.from(`é\n${FULL}###BAILOUT:après ✓###\n`);
    const whole = parseText(input);
    expect(whole.map((e) => e.type)).toEqual(['observation', 'signal']);
    for (let i = 1; i < input.length; i++) {
      expect(parseChunks(splitAt(input, [i])).events).toEqual(whole);
    }
    expect(parseChunks(splitAt(input, [...input.keys()])).events).toEqual(whole);
  });
});

describe('invalid observations are recorded with valid:false, raw text and a reason', () => {
  const table: [body: string, attrs: string, reason: RegExp, what: string][] = [
    ['<title>t</title><detail>d</detail>', 'type="feature" severity="low"', /type/, 'unknown type'],
    ['<title>t</title><detail>d</detail>', 'type="bug" severity="urgent"', /severity/, 'unknown severity'],
    ['<title>t</title><detail>d</detail><action>fix-it</action>', 'type="bug" severity="low"', /action/, 'unknown action'],
    ['<detail>d</detail>', 'type="bug" severity="low"', /title/, 'missing title'],
    ['<title>t</title>', 'type="bug" severity="low"', /detail/, 'missing detail'],
    ['<title>   </title><detail>d</detail>', 'type="bug" severity="low"', /title/, 'blank title'],
    ['<title>t</title><detail>d</detail>', 'severity="low"', /type/, 'missing type'],
    ['<title>t</title><detail>d</detail>', 'type="bug"', /severity/, 'missing severity'],
    ['<title>t</title><detail>d</detail>', 'type="BUG" severity="low"', /type/, 'type is case-sensitive'],
    ['<title>t</detail><detail>d</title>', 'type="bug" severity="low"', /XML/i, 'not well-formed XML'],
    ['<title>t<detail>d</detail>', 'type="bug" severity="low"', /XML/i, 'an unclosed child'],
    ['<title>a & b</title><detail>d</detail>', 'type="bug" severity="low"', /./, 'a bare ampersand'],
  ];
  it.each(table)('%s with %s (%s)', (body, attrs, reason) => {
    const raw = obs(attrs, body);
    const r = only(`${raw}\n`);
    expect(r.valid).toBe(false);
    expect(r.raw).toBe(raw);
    expect(r.error).toMatch(reason);
  });

  it('an element left open at end() is recorded, with its raw text and line', () => {
    const events = parseText('a\n<observation type="bug" severity="low">\n<title>t</title>\n###PLAN_COMPLETE###\n<detail>never clo');
    expect(events.map((e) => e.type)).toEqual(['ignored', 'observation']);
    const r = records(events)[0]!;
    expect(r).toMatchObject({ line: 2, valid: false });
    expect(r.raw).toContain('<observation type="bug" severity="low">');
    expect(r.raw).toContain('<detail>never clo');
    expect(r.error).toMatch(/not closed/);
  });

  it('an over-long element is recorded as invalid, and the raw text kept is bounded', () => {
    const events = parseText(`<observation type="bug" severity="low"><title>t</title><detail>${'x'.repeat(5000)}</detail></observation>\n###BLOCKED:x###\n`, {
      maxObservationBytes: 1024,
    });
    expect(events.map((e) => e.type)).toEqual(['observation', 'signal']);
    const r = records(events)[0]!;
    expect(r.valid).toBe(false);
    expect(r.error).toMatch(/longer than 1024/);
    expect(Buffer.byteLength(r.raw ?? '')).toBeLessThanOrEqual(1024);
  });

  it('an over-long element over many lines of one chunk keeps no more than the bound', () => {
    const body = `${'z'.repeat(99)}\n`.repeat(50);
    const events = parseText(`<observation type="bug" severity="low">\n<title>t</title>\n<detail>\n${body}</detail>\n</observation>\nLOOP_COMPLETE\n`, {
      maxObservationBytes: 1024,
    });
    expect(events.map((e) => e.type)).toEqual(['observation', 'claim']);
    const r = records(events)[0]!;
    expect(r).toMatchObject({ line: 1, valid: false, error: expect.stringMatching(/longer than 1024/) });
    expect(Buffer.byteLength(r.raw ?? '')).toBeLessThanOrEqual(1024);
    expect(events[1]).toMatchObject({ type: 'claim', line: 56 });
  });

  it('an element over 1 MiB by default is invalid, over many lines and chunks', () => {
    const line = `${'y'.repeat(1023)}\n`;
    const chunks = ['<observation type="bug" severity="low"><title>t</title><detail>\n'];
    for (let i = 0; i < 1100; i++) chunks.push(line);
    chunks.push('</detail></observation>\nLOOP_COMPLETE\n');
    const events = parseChunks(chunks).events;
    expect(events.map((e) => e.type)).toEqual(['observation', 'claim']);
    expect(records(events)[0]).toMatchObject({ line: 1, valid: false, error: expect.stringMatching(/longer than/) });
  });
});

describe('signals inside an observation', () => {
  it('are reported as ignored, never as signals, and count again after the closing tag', () => {
    const text = [
      '<observation type="blocker" severity="critical">',
      '<title>no key</title>',
      '###BLOCKED:no key###',
      '  LOOP_COMPLETE',
      '###NOT_A_SIGNAL###',
      '<detail>d</detail>',
      '</observation>',
      '###BLOCKED:no key###',
      '',
    ].join('\n');
    const events = parseText(text);
    expect(events.map((e) => [e.type, e.line])).toEqual([
      ['ignored', 3],
      ['ignored', 4],
      ['observation', 1],
      ['signal', 8],
    ]);
    expect(events[0]).toMatchObject({ name: 'BLOCKED', args: ['no key'], why: 'inside an observation' });
    // Stray text lines are mixed content of the element; its fields are still read.
    expect(records(events)[0]).toMatchObject({ line: 1, type: 'blocker', title: 'no key', detail: 'd' });
  });

  it('a self-closing <observation/> is a whole (invalid) element: what follows is outside it', () => {
    const events = parseText('<observation type="bug" severity="low"/>\n###PLAN_COMPLETE###\n');
    expect(events.map((e) => [e.type, e.line])).toEqual([
      ['observation', 1],
      ['signal', 2],
    ]);
  });
});

describe('tags that are not an observation', () => {
  const table: [text: string, what: string][] = [
    ['<observations>\n###PLAN_COMPLETE###\n', 'a longer tag name'],
    ['<observation-log type="x">\n###PLAN_COMPLETE###\n', 'a hyphenated tag name'],
    ['<Observation type="bug">\n###PLAN_COMPLETE###\n', 'another case'],
    ['</observation>\n###PLAN_COMPLETE###\n', 'a stray closing tag'],
  ];
  it.each(table)('%j (%s)', (text) => {
    expect(parseText(text).map((e) => [e.type, e.line])).toEqual([['signal', 2]]);
  });
});

describe('hostile XML from the agent', () => {
  const lol = [
    '<!DOCTYPE lolz [',
    '<!ENTITY lol "lol">',
    ...Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`),
    ']>',
  ].join('\n');

  it('an entity bomb declared before the element stays unexpanded', () => {
    const events = parseText(`${lol}\n${obs('type="bug" severity="low"', '<title>&lol9;</title><detail>&lol5; &amp;</detail>')}\n`);
    const r = records(events)[0]!;
    expect(records(events)).toHaveLength(1);
    expect(JSON.stringify(events).length).toBeLessThan(10_000);
    if (r.valid) expect(r).toMatchObject({ title: '&lol9;', detail: '&lol5; &' });
    else expect(r.raw).toContain('&lol9;');
  });

  it('an entity bomb inside the element never throws and is never expanded', () => {
    const raw = `<observation type="bug" severity="low">${lol}<title>&lol9;</title><detail>d</detail></observation>`;
    let events: ParserEvent[] = [];
    expect(() => (events = parseText(`${raw}\n###PLAN_COMPLETE###\n`))).not.toThrow();
    expect(events.map((e) => e.type)).toEqual(['observation', 'signal']);
    expect(JSON.stringify(events)).not.toContain('lollol');
    expect(JSON.stringify(events).length).toBeLessThan(10_000);
  });

  it('external entities are never resolved', () => {
    const raw = obs('type="bug" severity="low"', '<title>&xxe;</title><detail>d</detail>');
    const r = only(`<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n${raw}\n`);
    expect(JSON.stringify(r)).not.toContain('root:');
  });

  it('__proto__ and constructor tags and attributes pollute nothing', () => {
    const texts = [
      obs('type="bug" severity="low"', '<title>t</title><detail>d</detail><__proto__><polluted>yes</polluted></__proto__>'),
      obs('type="bug" severity="low"', '<title>t</title><detail>d</detail><constructor><prototype><polluted>yes</polluted></prototype></constructor>'),
      obs('type="bug" severity="low" __proto__="yes" constructor="x"', '<title>t</title><detail>d</detail>'),
      obs('type="bug" severity="low"', '<__proto__><title>t</title><detail>d</detail><polluted>yes</polluted></__proto__>'),
      obs('type="__proto__" severity="constructor"', '<title>toString</title><detail>hasOwnProperty</detail><action>__proto__</action>'),
    ];
    const events = parseText(texts.join('\n'));
    expect(records(events)).toHaveLength(texts.length);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    const rs = records(events);
    expect(rs[3]!.valid).toBe(false); // title and detail nested under __proto__ are not read as its own
    expect(rs[4]!.valid).toBe(false);
    for (const r of rs) {
      for (const key of ['type', 'severity', 'title', 'detail', 'file', 'action'] as const) {
        expect(r[key] === null || typeof r[key] === 'string').toBe(true);
      }
    }
  });

  it('never throws on a stream of broken tags', () => {
    const junk = '<observation <observation type="a" "b"=c><<>></observation>\n<observation type=\'\n</observation></observation>\n<observation\0\n';
    const p = new SignalParser(() => {});
    expect(() => {
      p.push(junk);
      p.end();
    }).not.toThrow();
  });
});
