// A draft pull request for a plan the batch ended itself (timed out, crashed): the run left no
// result.json, or one that says only `interrupted`, so the body takes the outcome and reason the
// batch recorded (docs/deliver.md "The pull request").
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prBody } from '../../src/deliver/pr-body.js';
import { readRunFacts, withRecordedOutcome } from '../../src/deliver/run-facts.js';

const PLAN = '---\nverify:\n  - npm test\n---\n# p\n\n<tasks>\n<task><name>only</name><action>a</action><done>d</done></task>\n</tasks>\n';

function runWithout(result?: object): { runDir: string; planPath: string } {
  const dir = mkdtempSync(join(tmpdir(), 'ralph-recorded-'));
  const runDir = join(dir, 'run');
  mkdirSync(runDir);
  if (result) writeFileSync(join(runDir, 'result.json'), JSON.stringify(result));
  const planPath = join(dir, 'p.md');
  writeFileSync(planPath, PLAN);
  return { runDir, planPath };
}

describe('the outcome a pull request body shows', () => {
  it('a crashed run without result.json: the batch\'s outcome and reason, not "unknown"', async () => {
    const read = await readRunFacts(runWithout());
    expect(read.outcome).toBe('unknown');
    const facts = withRecordedOutcome(read, 'crashed', 'the run crashed: spawn ENOENT');
    const body = prBody(facts, { draft: true, branch: 'ralph/b/p', commit: null });
    expect(body).toContain('and it ended **crashed**');
    expect(body).toContain('- Outcome: crashed');
    expect(body).toContain('- Reason: the run crashed: spawn ENOENT');
    expect(body).not.toContain('unknown**');
    expect(body).toContain('| npm test | not run | - |');
  });

  it('a timed-out run whose result.json says interrupted: timed out, with the plan timeout as the reason; an empty recorded reason keeps the run\'s', async () => {
    const read = await readRunFacts(runWithout({ outcome: 'interrupted', reason: 'stopped by a signal', iterations: 2 }));
    const facts = withRecordedOutcome(read, 'timed_out', 'plan timeout of 1s reached (stopped by a signal)');
    expect(facts).toMatchObject({ outcome: 'timed_out', reason: 'plan timeout of 1s reached (stopped by a signal)', iterations: 2 });
    expect(prBody(facts, { draft: true, branch: 'b', commit: null })).toContain('- Reason: plan timeout of 1s reached \\(stopped by a signal\\)');
    expect(withRecordedOutcome(read, 'failed', '').reason).toBe('stopped by a signal');
  });
});
