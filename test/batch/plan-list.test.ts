import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InvalidInputError } from '../../src/errors.js';
import { resolvePlans } from '../../src/batch/plan-list.js';
import { tempDir, writePlan } from './helpers.js';

describe('resolvePlans', () => {
  it('takes a folder’s *.md plans, not recursing, skipping _ and . files and summaries', async () => {
    const dir = tempDir();
    for (const n of ['b.md', 'a.md', '_draft.md', '.hidden.md', 'nested/c.md']) writePlan(dir, n);
    writeFileSync(join(dir, 'a.summary.json'), '{}');
    writeFileSync(join(dir, 'notes.txt'), 'x');
    const plans = await resolvePlans(['.'], dir);
    expect(plans).toEqual([
      { id: 'a', path: join(dir, 'a.md') },
      { id: 'b', path: join(dir, 'b.md') },
    ]);
  });

  it('uses the front matter id, and lists every problem at once', async () => {
    const dir = tempDir();
    writePlan(dir, 'x.md', 'id: alpha');
    writePlan(dir, 'alpha.md');
    writePlan(dir, 'bad.md', 'id: "a b"');
    writePlan(dir, 'index.md');
    mkdirSync(join(dir, 'empty'));
    const error = await resolvePlans(['x.md', 'alpha.md', 'bad.md', 'index.md', 'empty', 'nope.md'], dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    const problems = (error as InvalidInputError).problems.map((p) => p.message);
    expect(problems).toHaveLength(5);
    expect(problems.join('\n')).toMatch(/no such file/);
    expect(problems.join('\n')).toMatch(/folder holds no \*\.md plans/);
    expect(problems.join('\n')).toMatch(/"alpha" is also the id of .*x\.md/);
    expect(problems.join('\n')).toMatch(/"a b"/);
    expect(problems.join('\n')).toMatch(/"index" is reserved/);
    expect((await resolvePlans(['x.md'], dir))[0]!.id).toBe('alpha');
  });

  it('validates every plan before anything runs, listing the plan module’s problems', async () => {
    const dir = tempDir();
    writePlan(dir, 'ok.md');
    writeFileSync(join(dir, 'empty.md'), '');
    writeFileSync(join(dir, 'broken.md'), '---\nid: [unclosed\n---\n# b\n<tasks><task><name>t</name></task></tasks>\n');
    const error = await resolvePlans(['.'], dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    const problems = (error as InvalidInputError).problems;
    expect(problems.map((p) => p.file).sort()).toEqual([join(dir, 'broken.md'), join(dir, 'empty.md')]);
    expect(problems.find((p) => p.file.endsWith('broken.md'))!.line).toBeTypeOf('number');
  });
});
