// isSimpleElement lets the parser skip fast-xml-parser's validator, so every text it accepts must
// be one the validator accepts too; and it must accept what agents usually write, or it saves nothing.
import fc from 'fast-check';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { isSimpleElement } from '../../src/signals/simple-xml.js';

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
