import { describe, expect, it } from 'vitest';
import { ErrorLoopDetector, normaliseToolError } from '../../src/loop/error-loop.js';

describe('normaliseToolError', () => {
  it('line numbers, paths, hex ids and spacing do not make an error look new', () => {
    const a = normaliseToolError('Error at /repo/src/a.ts:12:3 — object 0x7ffe12 (commit 3f9a2b1c)');
    const b = normaliseToolError('error at /home/x/other/b.ts:480:19  —  object 0xdeadbeef (commit 77aa00ff12)');
    expect(a).toBe(b);
  });

  it('different errors stay different', () => {
    expect(normaliseToolError('permission denied')).not.toBe(normaliseToolError('no such file'));
  });

  it('only looks at the start of a huge error', () => {
    const huge = `boom ${'x'.repeat(100_000)}`;
    expect(normaliseToolError(huge).length).toBeLessThanOrEqual(2_000);
  });
});

describe('ErrorLoopDetector', () => {
  it('reports the same error the third time in a row', () => {
    const d = new ErrorLoopDetector();
    expect(d.record('bash: cannot open /tmp/a.txt line 3')).toBeUndefined();
    expect(d.record('bash: cannot open /tmp/b.txt line 9')).toBeUndefined();
    expect(d.record('bash: cannot open /var/c.txt line 10')).toBe(normaliseToolError('bash: cannot open /tmp/a.txt line 3'));
  });

  it('a different error in between starts the count again', () => {
    const d = new ErrorLoopDetector();
    d.record('timeout');
    d.record('timeout');
    expect(d.record('permission denied')).toBeUndefined();
    expect(d.record('timeout')).toBeUndefined();
    expect(d.record('timeout')).toBeUndefined();
    expect(d.record('timeout')).toBeDefined();
  });

  it('a successful tool call breaks the run', () => {
    const d = new ErrorLoopDetector();
    d.record('timeout');
    d.record('timeout');
    d.success();
    expect(d.record('timeout')).toBeUndefined();
    expect(d.record('timeout')).toBeUndefined();
    expect(d.record('timeout')).toBeDefined();
  });

  it('takes its limit as a parameter', () => {
    const d = new ErrorLoopDetector(2);
    expect(d.record('x')).toBeUndefined();
    expect(d.record('x')).toBeDefined();
  });
});
