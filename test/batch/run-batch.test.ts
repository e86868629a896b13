import { existsSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FLUX_DRIVE_SENTINEL } from '../../src/contract.js';
import { UsageError } from '../../src/errors.js';
import { runBatch, type BatchEvent } from '../../src/batch/index.js';
import { fakeRunner, finding, type Step } from './fake-runner.js';
import { tempDir, writePlan } from './helpers.js';

function setup(names: string[]) {
  const dir = tempDir();
  mkdirSync(join(dir, 'plans'));
  for (const n of names) writePlan(join(dir, 'plans'), `${n}.md`);
  return { dir, out: join(dir, 'out') };
}

function mdFiles(out: string): string[] {
  return readdirSync(out).filter((f) => f.endsWith('.md') && f !== 'index.md' && f !== 'report.md').sort();
}

function lastLine(path: string): string {
  return readFileSync(path, 'utf8').trimEnd().split('\n').at(-1)!;
}

async function batch(scripts: Record<string, Step[]>, names: string[], extra: Partial<Parameters<typeof runBatch>[0]> = {}, deps: Parameters<typeof runBatch>[1] = {}) {
  const { dir, out } = setup(names);
  const fake = fakeRunner(scripts);
  const events: BatchEvent[] = [];
  const summary = await runBatch(
    { cwd: dir, plans: ['plans'], out, concurrency: 2, isolate: 'none', ...extra },
    { runPlan: fake.runPlan, onEvent: (e) => events.push(e), stragglerGraceMs: 200, ...deps },
  );
  return { dir, out, fake, events, summary };
}

describe('runBatch', () => {
  it('runs mixed outcomes to one sentinel-terminated .md each, an index and batch.json', async () => {
    const { out, summary, fake } = await batch(
      {
        a: [{ outcome: 'complete', findings: [finding('bug', 'critical', 'Data loss'), finding('insight', 'info', 'Note')], summary: { plan: 'a', status: 'complete', tasks: [{ name: 't', status: 'done' }] } }],
        b: [{ outcome: 'blocked', reason: 'needs credentials' }],
        c: [{ outcome: 'complete' }],
      },
      ['a', 'b', 'c'],
    );
    expect(fake.calls.map((c) => c.plan).sort()).toEqual(['a', 'b', 'c']);
    expect(mdFiles(out)).toEqual(['a.md', 'b.md', 'c.md']);
    expect(readdirSync(out).some((f) => f.endsWith('.partial'))).toBe(false);
    for (const f of mdFiles(out)) expect(lastLine(join(out, f))).toBe(FLUX_DRIVE_SENTINEL);

    const a = readFileSync(join(out, 'a.md'), 'utf8');
    expect(a).toContain('- Outcome: complete');
    expect(a).toContain('### Findings Index\n- P0 | BG001 | "bug" | Data loss\n- P3 | INS001 | "insight" | Note\nVerdict: risky\n');
    expect(a).toContain('### Summary\n\n```json\n{\n  "plan": "a"');
    expect(a).toMatch(/## Progress\n\n- \d\d:\d\d:\d\d iteration 1 started/);
    expect(readFileSync(join(out, 'b.md'), 'utf8')).toContain('Verdict: needs-changes');

    const index = readFileSync(join(out, 'index.md'), 'utf8');
    expect(index.split('\n')[0]).toBe('[2/3 plans complete]');
    expect(index).toContain('| a | complete | 1 | 1 | $0.0100 | risky | — | [a.md](a.md) |');
    expect(index).toContain('| b | blocked | 1 | 1 | $0.0100 | needs-changes | — | [b.md](b.md) |');
    expect(summary.exitCode).toBe(2);
    expect(existsSync(join(out, 'report.md'))).toBe(true);

    const json = JSON.parse(readFileSync(join(out, 'batch.json'), 'utf8'));
    expect(json).toMatchObject({ version: 1, status: 'done', complete: 2, exitCode: 2, options: { concurrency: 2, isolate: 'none' } });
    expect(json.plans.map((p: { id: string }) => p.id)).toEqual(['a', 'b', 'c']);
    expect(json.results.map((r: { outcome: string }) => r.outcome)).toEqual(['complete', 'blocked', 'complete']);
  });

  it('retries a failed plan once, moving the first partial aside, and keeps the second result', async () => {
    const { out, summary, fake, events } = await batch({ a: [{ outcome: 'failed', reason: 'TASK_FAILED x' }, { outcome: 'complete' }] }, ['a']);
    expect(fake.calls.map((c) => c.options.runDir)).toEqual([join(out, 'runs', 'a'), join(out, 'runs', 'a.2')]);
    expect(readdirSync(join(out, 'attempts'))).toEqual(['a.attempt-1.md']);
    expect(lastLine(join(out, 'attempts', 'a.attempt-1.md'))).toBe(FLUX_DRIVE_SENTINEL);
    expect(readFileSync(join(out, 'attempts', 'a.attempt-1.md'), 'utf8')).toContain('- Outcome: failed');
    const a = readFileSync(join(out, 'a.md'), 'utf8');
    expect(a).toContain('- Outcome: complete');
    expect(a).toContain('- Attempts: 2');
    expect(a).toContain('- Earlier attempts: attempts/a.attempt-1.md');
    expect(events.filter((e) => e.type === 'plan-retry')).toHaveLength(1);
    expect(summary.exitCode).toBe(0);
  });

  it('writes an error stub after a second failure (exhausted, then a crash)', async () => {
    const { out, summary } = await batch({ a: [{ outcome: 'exhausted', reason: 'max iterations' }, { throw: 'crash' }], b: [{ outcome: 'complete' }] }, ['a', 'b']);
    const a = readFileSync(join(out, 'a.md'), 'utf8');
    expect(a).toContain('### Findings Index\nVerdict: error\nError: crashed: the run crashed: executor exploded\n');
    expect(lastLine(join(out, 'a.md'))).toBe(FLUX_DRIVE_SENTINEL);
    expect(readdirSync(join(out, 'attempts')).sort()).toEqual(['a.attempt-1.md', 'a.attempt-2.md']);
    expect(mdFiles(out)).toEqual(['a.md', 'b.md']);
    expect(summary.exitCode).toBe(1);
    expect(readFileSync(join(out, 'index.md'), 'utf8')).toMatch(/^\[1\/2 plans complete\]/);
  });

  it('does not retry blocked, complete or invalid plans; an invalid plan gets a stub', async () => {
    const { out, fake, summary } = await batch({ a: [{ throw: 'usage' }], b: [{ outcome: 'blocked' }] }, ['a', 'b']);
    expect(fake.calls).toHaveLength(2);
    expect(readFileSync(join(out, 'a.md'), 'utf8')).toContain('Verdict: error\nError: invalid:');
    expect(summary.exitCode).toBe(1);
  });

  it('stops a plan at --plan-timeout, counts it as timed out and retries it', async () => {
    const { out, fake, summary } = await batch({ a: [{ hang: true }, { outcome: 'complete' }] }, ['a'], { planTimeoutMs: 100 });
    expect(fake.calls).toHaveLength(2);
    expect(readFileSync(join(out, 'attempts', 'a.attempt-1.md'), 'utf8')).toContain('- Outcome: timed_out');
    expect(summary.exitCode).toBe(0);
  });

  it('moves on from a run that does not stop after its timeout, and a straggler cannot write', async () => {
    const { out, summary, fake } = await batch({ a: [{ hang: true, stuck: true }] }, ['a'], { planTimeoutMs: 50 });
    const a = readFileSync(join(out, 'a.md'), 'utf8');
    const before = readdirSync(out).sort();
    const attempt1 = readFileSync(join(out, 'attempts', 'a.attempt-1.md'), 'utf8');
    // The abandoned runs keep reporting: nothing of it lands anywhere.
    for (const call of fake.calls) call.hooks?.onEvent?.({ type: 'warning', iteration: 1, message: 'late' });
    expect(readdirSync(out).sort()).toEqual(before);
    expect(readFileSync(join(out, 'a.md'), 'utf8')).toBe(a);
    expect(readFileSync(join(out, 'attempts', 'a.attempt-1.md'), 'utf8')).toBe(attempt1);
    expect(a).toContain('Error: timed_out: plan timeout');
    expect(a).toContain('left behind');
    expect(summary.exitCode).toBe(1);
  });

  it('never runs more plans at once than --concurrency', async () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'];
    const scripts = Object.fromEntries(names.map((n) => [n, [{ outcome: 'complete', delayMs: 20 } as Step]]));
    const { fake, summary } = await batch(scripts, names, { concurrency: 3 });
    expect(fake.maxRunning()).toBe(3);
    expect(summary.complete).toBe(6);
  });

  it('ends every running plan interrupted on abort (exit 130), and --resume runs only those', async () => {
    const controller = new AbortController();
    const names = ['a', 'b', 'c'];
    const first = await batch({ a: [{ outcome: 'complete' }], b: [{ hang: true }, { outcome: 'complete' }], c: [{ hang: true }, { outcome: 'complete' }] }, names, { concurrency: 3 }, {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'plan-end' && e.plan === 'a') setTimeout(() => controller.abort(), 20);
      },
    });
    expect(first.summary.exitCode).toBe(130);
    expect(first.summary.interrupted).toBe(true);
    expect(mdFiles(first.out)).toEqual(['a.md', 'b.md', 'c.md']);
    expect(readFileSync(join(first.out, 'b.md'), 'utf8')).toContain('- Outcome: interrupted');
    expect(JSON.parse(readFileSync(join(first.out, 'batch.json'), 'utf8')).status).toBe('interrupted');

    const fake = fakeRunner({});
    const resumed = await runBatch({ cwd: first.dir, resume: first.out }, { runPlan: fake.runPlan });
    expect(fake.calls.map((c) => c.options.runDir).sort()).toEqual([join(first.out, 'runs', 'b.2'), join(first.out, 'runs', 'c.2')]);
    expect(resumed.exitCode).toBe(0);
    expect(readFileSync(join(first.out, 'index.md'), 'utf8')).toMatch(/^\[3\/3 plans complete\]/);
    expect(readdirSync(join(first.out, 'attempts')).sort()).toEqual(['b.interrupted.md', 'c.interrupted.md']);
  });

  it('on --resume handles what a crash left: complete partial, cut-short partial, empty partial, .md without sentinel', async () => {
    const first = await batch({}, ['p', 'q', 'r', 's', 't']);
    const out = first.out;
    const text = (id: string) => readFileSync(join(out, `${id}.md`), 'utf8');
    const { renameSync, rmSync } = await import('node:fs');
    renameSync(join(out, 'p.md'), join(out, 'p.md.partial')); // finished writing, not renamed
    writeFileSync(join(out, 'q.md.partial'), text('q').split('## Result')[0]!); // cut short
    rmSync(join(out, 'q.md'));
    writeFileSync(join(out, 'r.md.partial'), ''); // empty
    rmSync(join(out, 'r.md'));
    writeFileSync(join(out, 's.md'), text('s').replace(FLUX_DRIVE_SENTINEL, '')); // no sentinel
    const fake = fakeRunner({});
    const resumed = await runBatch({ cwd: first.dir, resume: out }, { runPlan: fake.runPlan });
    expect(fake.calls.map((c) => c.plan).sort()).toEqual(['q', 'r']);
    expect(mdFiles(out)).toEqual(['p.md', 'q.md', 'r.md', 's.md', 't.md']);
    expect(readdirSync(out).some((f) => f.endsWith('.partial'))).toBe(false);
    expect(readdirSync(join(out, 'attempts')).sort()).toEqual(['q.crashed.md.partial', 'r.crashed.md.partial']);
    const index = readFileSync(join(out, 'index.md'), 'utf8');
    expect(index).toMatch(/^\[5\/5 plans complete\]/);
    expect(index).toMatch(/- s: s\.md does not end with the completion sentinel/);
    expect(index).toMatch(/- p: resume: promoted p\.md\.partial/);
    expect(resumed.exitCode).toBe(0);
  });

  it('refuses bad input before anything runs', async () => {
    const { dir } = setup(['a']);
    writePlan(join(dir, 'other'), 'a.md');
    const fake = fakeRunner({});
    const run = (o: Partial<Parameters<typeof runBatch>[0]>) => runBatch({ cwd: dir, plans: ['plans'], ...o }, { runPlan: fake.runPlan });
    await expect(run({ plans: ['plans', 'other/a.md'] })).rejects.toThrow(/plan id "a" is also the id of/);
    await expect(run({ plans: ['missing'] })).rejects.toThrow(UsageError);
    await expect(run({ concurrency: 4 })).rejects.toThrow(/needs a git repository/);
    await expect(run({ concurrency: 0 })).rejects.toThrow(/--concurrency/);
    await expect(run({ resume: 'nowhere', plans: [] })).rejects.toThrow(/no batch to resume/);
    const out = join(dir, 'o');
    await run({ out });
    await expect(run({ out })).rejects.toThrow(/already holds a batch/);
    expect(fake.calls).toHaveLength(1);
  });

  it('defaults the batch folder to .ralph/batches/<timestamp>', async () => {
    const { dir } = setup(['a']);
    const fake = fakeRunner({});
    const now = () => new Date('2026-03-04T05:06:07Z');
    const s1 = await runBatch({ cwd: dir, plans: ['plans'] }, { runPlan: fake.runPlan, now });
    const s2 = await runBatch({ cwd: dir, plans: ['plans'] }, { runPlan: fake.runPlan, now });
    expect(s1.out).toBe(join(dir, '.ralph', 'batches', '20260304-050607'));
    expect(s2.out).toBe(join(dir, '.ralph', 'batches', '20260304-050607-2'));
  });
});
