// What a worker trusts (docs/queue.md): sealed payloads, every field of a job checked, the secret
// required; and the lease on a plan's branch (a push never overwrites work it did not start from).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/errors.js';
import { Checkouts } from '../../src/queue/checkout.js';
import { checkReport, checkRunFacts, openJob, sealJob, type QueueJobData } from '../../src/queue/job.js';
import { readQueueSecret, seal, sealText, unsealText } from '../../src/queue/seal.js';
import { git } from './helpers.js';

const SECRET = 'a'.repeat(40);
const data: QueueJobData = {
  batchId: '20260101-000000-abcdef',
  plan: 'p1',
  planPath: 'plans/p1.md',
  remote: '/srv/remote.git',
  commit: 'c'.repeat(40),
  exec: { maxIterations: 3, cwd: 'sub' },
  planTimeoutMs: null,
  firstAttempt: 1,
  coordinator: 'host',
};

describe('sealed jobs', () => {
  it('opens a job sealed with the secret, and refuses one sealed with another, tampered with, or unsealed', () => {
    expect(openJob(SECRET, sealJob(SECRET, data))).toEqual({ kind: 'ok', data });
    expect(openJob('b'.repeat(40), sealJob(SECRET, data))).toEqual({ kind: 'refused', why: "it is not sealed with this worker's queue secret" });
    const tampered = sealJob(SECRET, data);
    tampered.body = tampered.body.replace('"maxIterations":3', '"maxIterations":3,"command":["sh","-c","id"]');
    expect(openJob(SECRET, tampered).kind).toBe('refused');
    expect(openJob(SECRET, { ...data, v: 1 })).toEqual({ kind: 'refused', why: 'its format (1) carries no seal' });
    expect(openJob(SECRET, { ...sealJob(SECRET, data), plan: 'other' })).toEqual({ kind: 'refused', why: 'its names differ from its sealed data' });
  });

  it('carries the batch\'s sandbox mode and protect globs', () => {
    const withGuards = { ...data, exec: { ...data.exec, sandbox: 'on' as const, protect: ['tests/**'] } };
    expect(openJob(SECRET, sealJob(SECRET, withGuards))).toEqual({ kind: 'ok', data: withGuards });
  });

  it('hands back a newer format rather than refusing it', () => {
    expect(openJob(SECRET, { v: 4, body: '{}', mac: '' })).toEqual({ kind: 'newer', format: '4' });
  });

  it('writes a job with checkpoints in format 3, which a worker from before checkpoints (format 2) hands back; one without stays format 2', () => {
    const withCheckpoints = { ...data, checkpoints: { squash: true } };
    expect(sealJob(SECRET, data).v).toBe(2);
    expect(sealJob(SECRET, withCheckpoints).v).toBe(3);
    expect(openJob(SECRET, sealJob(SECRET, withCheckpoints))).toEqual({ kind: 'ok', data: withCheckpoints });
    // The format is outside the seal: one lowered to 2 (so an older worker would run it without checkpoints) is refused.
    expect(openJob(SECRET, { ...sealJob(SECRET, withCheckpoints), v: 2 })).toEqual({ kind: 'refused', why: 'its format (2) does not match its data' });
    for (const checkpoints of [{ squash: 'yes' }, { squash: true, extra: 1 }, [], null]) {
      expect(openJob(SECRET, sealJob(SECRET, { ...data, checkpoints } as unknown as QueueJobData))).toEqual({ kind: 'refused', why: 'its data is not valid: checkpoints is not { squash: true|false }' });
    }
  });

  it.each([
    [{ exec: { command: ['sh', '-c', 'id'] } }, 'a job never carries the agent command'],
    [{ exec: { promptsDir: '/etc' } }, 'exec.promptsDir is not a path inside the repository'],
    [{ exec: { cwd: '../..' } }, 'exec.cwd is not a path inside the repository'],
    [{ exec: { agent: '../x' } }, 'exec.agent is not an agent name'],
    [{ exec: { env: { X: '1' } } }, 'exec.env is not an option a job may carry'],
    [{ exec: { sandbox: 'none' } }, 'exec.sandbox is not a sandbox mode'],
    [{ exec: { protect: ['ok', 'bad\u0000'] } }, 'exec.protect is not a list of globs'],
    [{ planPath: '../../../etc/passwd' }, 'planPath is not a path inside the repository'],
    [{ planPath: 'plans/../../x.md' }, 'planPath is not a path inside the repository'],
    [{ plan: '../x' }, 'plan is not a plan id'],
    [{ batchId: '../../x' }, 'batchId is not a batch id'],
    [{ remote: '--upload-pack=touch /tmp/x' }, 'remote is not a git URL or path'],
    [{ commit: 'HEAD' }, 'commit is not a commit id'],
    [{ firstAttempt: 0 }, 'firstAttempt is not an attempt number'],
  ])('refuses a sealed job whose data is not valid: %o', (change, problem) => {
    const bad = { ...data, ...change } as QueueJobData;
    expect(openJob(SECRET, sealJob(SECRET, bad))).toEqual({ kind: 'refused', why: `its data is not valid: ${problem}` });
  });
});

describe('sealed reports', () => {
  const report = { batchId: data.batchId, plan: 'p1', attempt: 2, final: true, outcome: 'complete', text: '', findings: '', worker: { id: 'h-1', host: 'h', pid: 1 }, runDir: '/r', checkout: '/c', branch: 'b' };

  it('takes a report only under its own field, of its own batch, with an attempt number', () => {
    const opened = unsealText(SECRET, 'report', sealText(SECRET, 'report', report));
    expect(checkReport(opened, data.batchId, 'p1#2')).not.toBeNull();
    expect(checkReport(opened, data.batchId, 'p1#1')).toBeNull();
    expect(checkReport(opened, '20260101-000000-ffffff', 'p1#2')).toBeNull();
    expect(checkReport({ ...report, attempt: '/../../x' }, data.batchId, 'p1#/../../x')).toBeNull();
    // Sealed as something else (a progress payload) is not a report.
    expect(unsealText(SECRET, 'report', JSON.stringify(seal(SECRET, 'progress', report)))).toBeNull();
  });
});

describe("a report's run facts (for a pull request's body)", () => {
  const facts = {
    planId: 'p1',
    planPath: '/c/plans/p1.md',
    outcome: 'complete',
    reason: 'done',
    iterations: 1,
    costUsd: null,
    durationMs: 1200,
    objective: 'Make it.',
    tasks: [{ name: 'only', status: 'done' }],
    verify: [{ command: 'npm test', ran: { command: 'npm test', exitCode: 0, timedOut: false, durationMs: 5 } }, { command: 'lint', ran: null }],
    findings: [{ type: 'note', severity: 'low', title: 't', file: null }],
    blocked: null,
    runDir: 'h:/r',
  };

  it('takes well-formed facts and refuses any field of the wrong kind', () => {
    expect(checkRunFacts(facts)).toEqual(facts);
    expect(checkRunFacts(null)).toBeNull();
    expect(checkRunFacts({ ...facts, findings: [{ ...facts.findings[0], title: 7 }] })).toBeNull();
    expect(checkRunFacts({ ...facts, verify: [{ command: 'x', ran: { command: 'x', exitCode: '0', timedOut: false, durationMs: 1 } }] })).toBeNull();
    expect(checkRunFacts({ ...facts, tasks: 'all done' })).toBeNull();
    expect(checkRunFacts({ ...facts, blocked: {} })).toBeNull();
  });
});

describe('the queue secret', () => {
  it('is required, long enough, from the environment or a file', () => {
    let error: unknown;
    try {
      readQueueSecret({});
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(64);
    expect((error as UsageError).hint).toContain('openssl rand -hex 32');
    expect(() => readQueueSecret({ RALPH_QUEUE_SECRET: 'short' })).toThrow('is too short (5 characters; at least 32)');
    const file = join(mkdtempSync(join(tmpdir(), 'ralph-secret-')), 'secret');
    writeFileSync(file, `${SECRET}\n`);
    expect(readQueueSecret({ RALPH_QUEUE_SECRET_FILE: file })).toBe(SECRET);
    expect(() => readQueueSecret({ RALPH_QUEUE_SECRET_FILE: `${file}.missing` })).toThrow(/cannot read RALPH_QUEUE_SECRET_FILE .*: ENOENT/);
  });
});

describe('the lease on a plan branch', () => {
  it('refuses a push when the branch moved since the attempt started, and pushes on the commit it expects', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-lease-'));
    const remote = join(dir, 'remote.git');
    git(dir, 'init', '-q', '--bare', '-b', 'main', remote);
    git(dir, 'clone', '-q', remote, join(dir, 'other'));
    const other = join(dir, 'other');
    git(other, 'commit', '-q', '--allow-empty', '-m', 'base');
    git(other, 'push', '-q', 'origin', 'HEAD:main');
    const base = git(other, 'rev-parse', 'HEAD');
    const checkouts = new Checkouts(join(dir, 'work'));
    const co = await checkouts.prepare({ remote, commit: base, branch: 'ralph/b/p', continueBranch: false });
    expect(co.expected).toBe('');
    // A stale attempt elsewhere pushes the branch first.
    git(other, 'commit', '-q', '--allow-empty', '-m', 'stale');
    git(other, 'push', '-q', 'origin', 'HEAD:refs/heads/ralph/b/p');
    const stale = git(other, 'rev-parse', 'HEAD');
    git(co.path, 'commit', '-q', '--allow-empty', '-m', 'mine');
    const mine = git(co.path, 'rev-parse', 'HEAD');
    await expect(checkouts.push({ remote, branch: 'ralph/b/p', head: mine, expected: co.expected })).rejects.toThrow(/stale info|rejected/);
    expect(git(remote, 'rev-parse', 'ralph/b/p')).toBe(stale);
    // The attempt that owns the plan looks again and pushes over what it found.
    expect(await checkouts.remoteHead(remote, 'ralph/b/p')).toBe(stale);
    await checkouts.push({ remote, branch: 'ralph/b/p', head: mine, expected: stale });
    expect(git(remote, 'rev-parse', 'ralph/b/p')).toBe(mine);
  });
});
