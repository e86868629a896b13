// `ralph batch` with a config file: per-plan ended/blocked, batch_ended with the index's first
// line and the report, after_plan and after_batch hooks, the config's agent and batch defaults.
// Built CLI, the batch fixture agent, a real receiver on 127.0.0.1.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runRalph, type Ran } from '../helpers/run-ralph.js';
import { BATCH_AGENT as AGENT, writeBatchPlan as plan } from '../helpers/batch-agent.js';
import { tempDir } from '../batch/helpers.js';
import { recorder, type Receiver } from './receivers.js';

const receivers: Receiver[] = [];
afterEach(async () => {
  for (const r of receivers.splice(0)) await r.close();
});

function ralph(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return runRalph(args, { cwd, env });
}

describe('ralph batch with notifications and hooks', () => {
  it('notifies each plan once at its end (blocked too) and the batch end with [N/M plans complete] and the report', async () => {
    const r = await recorder();
    receivers.push(r);
    const dir = tempDir();
    plan(join(dir, 'plans'), 'a', 'complete');
    plan(join(dir, 'plans'), 'd', 'block');
    plan(join(dir, 'plans'), 'f', 'fail');
    writeFileSync(
      join(dir, 'ralph.config.yaml'),
      [
        'agent: fixture',
        'agents:',
        '  fixture:',
        `    command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}]`,
        'defaults:',
        '  out: out',
        'notify:',
        '  - webhook: ${RALPH_TEST_HOOK}',
        'hooks:',
        "  after_plan: 'echo \"$RALPH_PLAN_ID $RALPH_OUTCOME $RALPH_EXIT_CODE\" >> after-plan.txt'",
        "  after_batch: 'cat > after-batch.json'",
        '',
      ].join('\n'),
    );
    const run = await ralph(['batch', 'plans', '--isolate', 'none'], dir, { RALPH_TEST_HOOK: r.url });
    // Progress goes to stderr; nothing there may be a warning or an error (the failed plan's verdict word aside).
    expect(run.stderr.replaceAll('verdict error', '')).not.toMatch(/warning|error/i);
    expect(run.code).toBe(1);
    const out = join(dir, 'out');
    const bodies = r.received.map((x) => JSON.parse(x.body));
    const perPlan = bodies.filter((b) => b.plan !== null).map((b) => `${b.plan} ${b.event} ${b.outcome}`);
    expect(perPlan.sort()).toEqual(['a ended complete', 'd blocked blocked', 'd ended blocked', 'f ended failed']);
    const blocked = bodies.find((b) => b.event === 'blocked');
    expect(blocked.runDir).toBe(join(out, 'runs', 'd'));
    expect(blocked.reason).toBeTruthy();
    // Each plan's own exit code, as `ralph exec` would have exited (0 complete, 2 blocked, 1 failed), never null.
    const codes = bodies.filter((b) => b.plan !== null).map((b) => `${b.plan} ${b.event} ${b.exitCode}`);
    expect(codes.sort()).toEqual(['a ended 0', 'd blocked 2', 'd ended 2', 'f ended 1']);
    const end = bodies.filter((b) => b.event === 'batch_ended');
    expect(end).toHaveLength(1);
    expect(end[0]).toMatchObject({ version: 1, exitCode: 1, batch: { line: '[1/3 plans complete]', complete: 1, total: 3, index: join(out, 'index.md'), report: join(out, 'report.md') } });
    expect(readFileSync(join(out, 'index.md'), 'utf8').split('\n')[0]).toBe('[1/3 plans complete]');
    expect(end[0].summary).toContain('[1/3 plans complete]');
    expect(bodies.at(-1).event).toBe('batch_ended');

    expect(readFileSync(join(dir, 'after-plan.txt'), 'utf8').trim().split('\n').sort()).toEqual(['a complete 0', 'd blocked 2', 'f failed 1']);
    expect(JSON.parse(readFileSync(join(dir, 'after-batch.json'), 'utf8'))).toMatchObject({ version: 1, hook: 'after_batch', line: '[1/3 plans complete]', complete: 1, total: 3, exitCode: 1 });
  });
});
