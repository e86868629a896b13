// isSimpleElement lets the parser skip fast-xml-parser's validator, so every text it accepts must
// be one the validator accepts too; and it must accept what agents usually write, or it saves nothing.
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { isSimpleElement, readFlatElement } from '../../src/signals/simple-xml.js';
import { flatFields, xmlFields } from '../../src/signals/observation.js';

const { XMLValidator } = createRequire(import.meta.url)('fast-xml-parser') as typeof import('fast-xml-parser');

describe('isSimpleElement', () => {
  it.each([
    '<observation type="bug" severity="high">\n  <title>Refill overflows</title>\n  <detail>tokens exceed capacity</detail>\n  <file>src/bucket.ts</file>\n</observation>',
    "<observation type='stub' severity='low'><title>A &amp; B &lt;3 &#65;&#x42;</title><detail>x > y, \"q\"</detail></observation>",
    '<observation\ttype="insight"\nseverity="info" ><title>t</title>\r\n<detail>multi\nline</detail><action>none</action></observation>  \n',
    '<observation type="bug" severity="low"><title>é ✓ 日本</title><detail>d</detail><extra><x.y-z_1>n</x.y-z_1></extra></observation>',
  ])('accepts what agents write: %j', (text) => {
    expect(isSimpleElement(text)).toBe(true);
    expect(XMLValidator.validate(text)).toBe(true);
  });

  it.each([
    ['<title>t</detail><detail>d</title>', 'crossed tags'],
    ['<title>t<detail>d</detail>', 'an unclosed child'],
    ['<title>a & b</title>', 'a bare ampersand'],
    ['<title>&;</title>', 'an empty reference'],
    ['<title><!-- c --></title>', 'a comment'],
    ['<title><![CDATA[x]]></title>', 'CDATA'],
    ['<file/>', 'a self-closing child'],
    ['<title a="1" a="2">t</title>', 'a repeated attribute'],
    ['<title a=1>t</title>', 'an unquoted attribute'],
    ['<title a="x<y">t</title>', 'a < in an attribute'],
    ['<ns:title>t</ns:title>', 'a prefixed name'],
    ['</title>', 'a stray closing tag'],
  ])('leaves the rest to the validator: %s (%s)', (body) => {
    expect(isSimpleElement(`<observation type="bug" severity="low">${body}</observation>`)).toBe(false);
  });

  it('rejects text after the element, a self-closing root, and no element at all', () => {
    expect(isSimpleElement('<observation type="bug"></observation> x')).toBe(false);
    expect(isSimpleElement('<observation type="bug"/>')).toBe(false);
    expect(isSimpleElement('observation')).toBe(false);
    expect(isSimpleElement('<observation type="bug">')).toBe(false);
  });

  // Pieces of XML and near-XML, shuffled: whatever isSimpleElement accepts, the validator accepts.
  const piece = fc.oneof(
    fc.constantFrom(
      '<observation', '</observation>', '<title>', '</title>', '<detail>', '</detail>', '<a', '</a>', '<a>', '>', '/>', '<', '</',
      ' type="bug"', " severity='low'", ' a="1"', ' a=', '"', "'", '=', '&amp;', '&lt;', '&#65;', '&#x4a;', '&#x;', '&#;', '&', ';',
      '&abcdefghijklmnopqrs;', '&abcdefghijklmnopqrst;', '<!--', '-->', '<![CDATA[', ']]>', '<?xml version="1.0"?>', '<!DOCTYPE x>',
      ' ', '\n', '\r', '\t', 'text', ':', 'é', '日', 'x.y', '-', '_', '1',
    ),
    fc.string({ maxLength: 6 }),
  );
  const text = fc.array(piece, { maxLength: 24 }).map((ps) => ps.join(''));
  const wrapped = fc.tuple(text, text).map(([a, b]) => `<observation type="bug"${a}>${b}</observation>`);

  it('accepts nothing the validator rejects', () => {
    let accepted = 0;
    fc.assert(
      fc.property(fc.oneof(text, wrapped), (s) => {
        if (!isSimpleElement(s)) return;
        accepted++;
        expect(XMLValidator.validate(s)).toBe(true);
      }),
      { numRuns: 20000 },
    );
    // The property is only worth something if it was exercised.
    expect(accepted).toBeGreaterThan(50);
  });
});

// readFlatElement lets the parser skip fast-xml-parser altogether for the flat shape, so for
// every text it reads, the fields must be exactly those fast-xml-parser gives.
describe('readFlatElement', () => {
  const blank = fc.constantFrom('', ' ', '\n', '  ', '\r\n', '\t', '\r', '\n\n  ');
  // Mostly what agents write, with a little of everything that must send a text elsewhere.
  const mostly = <T,>(usual: fc.Arbitrary<T>, rare: fc.Arbitrary<T>) => fc.oneof({ arbitrary: usual, weight: 12 }, { arbitrary: rare, weight: 1 });
  const textPiece = mostly(
    fc.constantFrom('a', 'Refill overflows', ' ', '\n', '\r', '\r\n', '\t', '\u00a0', '\u2028', '\ufeff', 'é', '日本', '>', '"', "'",
      '&amp;', '&lt;', '&#65;', '&#x1F600;', '&bogus;', '=', 'x / y', '[]'),
    fc.oneof(fc.constantFrom('&', '&#;', '<', '</', '<b>x</b>', '<!-- c -->', '<![CDATA[x]]>'), fc.string({ maxLength: 4 })),
  );
  const text = fc.array(textPiece, { maxLength: 8 }).map((ps) => ps.join(''));
  const childName = mostly(
    fc.constantFrom('title', 'detail', 'file', 'action', 'extra', 'a.b', '_x-1', 'Title'),
    fc.constantFrom('constructor', 'toString', '__proto__', 'ns:x', '1x', 'hasOwnProperty'),
  );
  const child = fc.tuple(blank, childName, mostly(fc.constant(''), fc.constantFrom(' a="1"', '/', ' ')), text).map(
    ([pre, name, attr, body]) => (attr === '/' ? `${pre}<${name}/>` : `${pre}<${name}${attr}>${body}</${name}>`),
  );
  const attrValue = fc
    .array(mostly(fc.constantFrom('bug', 'high', ' ', '\r\n', '\r', '\u00a0', 'x', "'", '"', '\t'), fc.constantFrom('&amp;', '<', '>')), { maxLength: 4 })
    .map((p) => p.join(''));
  const attribute = fc.tuple(mostly(fc.constantFrom('type', 'severity', 'a'), fc.constantFrom('toString', 'x:y', 'type')), fc.constantFrom('"', "'"), attrValue, blank).map(
    ([name, q, value, pre]) => ` ${pre}${name}=${q}${value.replaceAll(q, '')}${q}`,
  );
  const element = fc
    .tuple(fc.array(attribute, { maxLength: 3 }), fc.array(child, { maxLength: 5 }), blank, mostly(fc.constantFrom('', '\n', ' \r\n'), fc.constantFrom('stray', ' x', '<a/>')))
    .map(([attrs, kids, end, after]) => `<observation${attrs.join('')}>${kids.join('')}${end}</observation>${after}`);

  it('reads exactly what fast-xml-parser reads, whenever it reads anything', () => {
    let read = 0;
    fc.assert(
      fc.property(element, (s) => {
        const flat = flatFields(s);
        if (flat === undefined) return;
        read++;
        expect(flat).toEqual(xmlFields(s));
      }),
      { numRuns: 20000 },
    );
    expect(read).toBeGreaterThan(2000);
  });

  it('reads the shape agents write, and leaves every other shape to fast-xml-parser', () => {
    const plain = '<observation type="bug" severity="high">\r\n  <title> Refill &amp; overflow </title>\n  <detail>tokens\r\nexceed</detail>\n</observation>\n';
    expect(flatFields(plain)).toEqual({ type: 'bug', severity: 'high', title: 'Refill & overflow', detail: 'tokens\nexceed', file: null, action: 'none' });
    for (const other of [
      '<observation type="bug"><title>a</title><title>b</title></observation>',
      '<observation type="bug"><title>a<b>c</b></title></observation>',
      '<observation type="bug"><title lang="en">a</title></observation>',
      '<observation type="bug">text<title>a</title></observation>',
      '<observation type="bug"><constructor>a</constructor></observation>',
      '<observation type="bug"></observation>',
      '<finding type="bug"><title>a</title></finding>',
    ]) {
      expect(readFlatElement(other)?.name === 'observation' ? flatFields(other) : undefined, other).toBeUndefined();
    }
  });
});
