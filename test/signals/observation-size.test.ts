// An observation past the size bound says so (docs/hostile.md "Messages"), also when the closing
// tag was in the part of an over-long line that was not kept.
import { describe, expect, it } from 'vitest';
import { createSignalParser, type ParserEvent } from '../../src/signals/parser.js';

function observe(chunks: string[]): ParserEvent[] {
  const events: ParserEvent[] = [];
  const p = createSignalParser((e) => events.push(e));
  for (const c of chunks) p.push(Buffer.from(c));
  p.end();
  return events.filter((e) => e.type === 'observation');
}

describe('a 10 MB observation', () => {
  it('on one line: reported as exceeding the size limit, not as merely unclosed', () => {
    const [e] = observe([`<observation type="bug" severity="high"><title>big</title><detail>${'x'.repeat(10 * 1024 * 1024)}</detail></observation>\n`]);
    expect(e).toMatchObject({ type: 'observation', record: { valid: false } });
    expect((e as { record: { error: string } }).record.error).toMatch(/exceeded the size limit \(1048576 bytes/);
  });

  it('a small unclosed one is still just unclosed', () => {
    const [e] = observe(['<observation type="bug" severity="high">\n<title>t</title>\n']);
    expect((e as { record: { error: string } }).record.error).toBe('the <observation> element was not closed before the output ended');
  });
});
