// The notifier against real receivers on 127.0.0.1: payloads, signatures, retries, the flush
// bound, filters and redaction.
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NOTIFY } from '../../src/contract.js';
import { Notifier } from '../../src/notify/notifier.js';
import { basePayload, withSummary, type NotificationPayload } from '../../src/notify/payload.js';
import { makeRedactor } from '../../src/notify/redact.js';
import { targetFromEntry, targetFromFlag, type Target } from '../../src/notify/targets.js';
import { flaky, recorder, silent, type Receiver } from './receivers.js';

const open: Receiver[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) await r.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
async function receiver(make: () => Promise<Receiver>): Promise<Receiver> {
  const r = await make();
  open.push(r);
  return r;
}

function payload(event: NotificationPayload['event'] = 'blocked', extra: Partial<NotificationPayload> = {}): NotificationPayload {
  return withSummary({ ...basePayload(event, new Date('2026-01-02T03:04:05Z'), '/work'), plan: 'demo', runDir: '/work/.ralph/runs/r1', runId: 'r1', outcome: 'blocked', reason: 'needs <credentials> & a key', ...extra });
}

function notifier(targets: Target[], secrets: string[] = [], retryWindowMs?: number) {
  const warnings: string[] = [];
  const n = new Notifier(targets, {
    onWarning: (m) => warnings.push(m),
    redact: makeRedactor(secrets),
    backoffMs: () => 50,
    ...(retryWindowMs !== undefined ? { retryWindowMs } : {}),
  });
  return { n, warnings };
}

describe('notifier', () => {
  it('POSTs the versioned JSON payload to a webhook, signed with HMAC-SHA256 when it has a secret', async () => {
    const r = await receiver(recorder);
    const target = targetFromEntry({ webhook: `${r.url}/hook`, secret: 's3cret-key', headers: { authorization: 'Bearer tok' } }, 0)!;
    const { n, warnings } = notifier([target]);
    n.send(payload());
    await n.flush();
    expect(warnings).toEqual([]);
    expect(r.received).toHaveLength(1);
    const got = r.received[0]!;
    expect(got.method).toBe('POST');
    expect(got.path).toBe('/hook');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers.authorization).toBe('Bearer tok');
    expect(got.headers['x-ralph-event']).toBe('blocked');
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ version: NOTIFY.payloadVersion, event: 'blocked', plan: 'demo', runDir: '/work/.ralph/runs/r1', reason: 'needs <credentials> & a key' });
    expect(got.headers['x-ralph-signature-256']).toBe(`sha256=${createHmac('sha256', 's3cret-key').update(got.body).digest('hex')}`);
  });

  it('sends Slack {text} with markup escaped, and ntfy plain text', async () => {
    const slack = await receiver(recorder);
    const ntfy = await receiver(recorder);
    const { n } = notifier([targetFromFlag(`slack:${slack.url}/services/x`, 0), targetFromFlag(`ntfy:${ntfy.url}/topic`, 1)]);
    n.send(payload());
    await n.flush();
    const text = JSON.parse(slack.received[0]!.body) as Record<string, string>;
    expect(Object.keys(text)).toEqual(['text']);
    expect(text.text).toContain('plan demo is blocked: needs &lt;credentials&gt; &amp; a key');
    expect(ntfy.received[0]!.headers['content-type']).toMatch(/^text\/plain/);
    expect(ntfy.received[0]!.body).toBe('ralph: plan demo is blocked: needs <credentials> & a key (run /work/.ralph/runs/r1)');
  });

  it('retries a 500 and delivers once the receiver answers 200, without a warning', async () => {
    const r = await receiver(() => flaky(2));
    const { n, warnings } = notifier([targetFromFlag(r.url, 0)]);
    n.send(payload('ended'));
    await n.flush();
    expect(r.received).toHaveLength(3);
    expect(new Set(r.received.map((x) => x.body)).size).toBe(1);
    expect(warnings).toEqual([]);
  });

  it('gives up after its retry window with one warning naming the target without its secret path', async () => {
    const r = await receiver(() => flaky(1000));
    const { n, warnings } = notifier([targetFromFlag(`${r.url}/secret-path-token`, 0)], [`${r.url}/secret-path-token`], 300);
    n.send(payload('ended'));
    await n.flush();
    expect(r.received.length).toBeGreaterThan(1);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/notification "ended" to webhook 127\.0\.0\.1:\d+ not delivered after \d+ attempts: answered HTTP 500/);
    expect(warnings[0]).not.toContain('secret-path-token');
  });

  it('does not retry a 4xx other than 408/429', async () => {
    const r = await receiver(() => start404());
    const { n, warnings } = notifier([targetFromFlag(r.url, 0)]);
    n.send(payload('ended'));
    await n.flush();
    expect(r.received).toHaveLength(1);
    expect(warnings[0]).toContain('answered HTTP 404');
  });

  it('flush() gives up on a receiver that never answers within its deadline, with a warning', async () => {
    const r = await receiver(silent);
    const { n, warnings } = notifier([targetFromFlag(r.url, 0)]);
    n.send(payload('blocked'));
    n.send(payload('ended'));
    // Without the deadline this would wait for ever (the test's timeout).
    await n.flush(800);
    expect(r.received).toHaveLength(1);
    // Both are reported: the one under way and the one queued behind it.
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).toMatch(/given up: ralph waits at most 5s/);
  });

  it('each target gets only the events (and outcomes) it asked for', async () => {
    const a = await receiver(recorder);
    const b = await receiver(recorder);
    const onlyBlocked = targetFromEntry({ webhook: a.url, events: ['blocked'] }, 0)!;
    const failedEnds = targetFromEntry({ webhook: b.url, events: ['ended'], outcomes: ['failed'] }, 1)!;
    const { n } = notifier([onlyBlocked, failedEnds]);
    n.send(payload('blocked'));
    n.send(payload('ended', { outcome: 'blocked' }));
    n.send(payload('ended', { outcome: 'failed' }));
    await n.flush();
    expect(a.received.map((x) => JSON.parse(x.body).event)).toEqual(['blocked']);
    expect(b.received.map((x) => JSON.parse(x.body).outcome)).toEqual(['failed']);
  });

  it('a command target gets the payload on stdin and the facts in its environment', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-notify-'));
    dirs.push(dir);
    const out = join(dir, 'out');
    const target = targetFromEntry({ command: `cat > ${out}.json; printf '%s|%s|%s' "$RALPH_EVENT" "$RALPH_PLAN_ID" "$RALPH_RUN_DIR" > ${out}.env` }, 0)!;
    const { n, warnings } = notifier([target]);
    n.send(payload('blocked', { cwd: dir }));
    await n.flush();
    expect(warnings).toEqual([]);
    expect(JSON.parse(readFileSync(`${out}.json`, 'utf8'))).toMatchObject({ version: 1, event: 'blocked', plan: 'demo' });
    expect(readFileSync(`${out}.env`, 'utf8')).toBe('blocked|demo|/work/.ralph/runs/r1');
  });

  it('a failing command target is one warning, not retried', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-notify-'));
    dirs.push(dir);
    const target = targetFromEntry({ command: `echo run >> ${join(dir, 'count')}; echo oops >&2; exit 7` }, 0)!;
    const { n, warnings } = notifier([target]);
    n.send(payload('ended', { cwd: dir }));
    await n.flush();
    expect(readFileSync(join(dir, 'count'), 'utf8')).toBe('run\n');
    expect(warnings).toEqual(['notification "ended" to notify[0] command not delivered: exited 7: oops']);
  });

  // docs/hostile.md "Hooks and notification commands".
  it('a command target that leaves a setsid daemon holding its output: delivered at once, the daemon stopped and named', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ralph-notify-'));
    dirs.push(dir);
    const tag = `${60 + Math.random()}`.slice(0, 12);
    const target = targetFromEntry({ command: `setsid sleep ${tag} & echo sent` }, 0)!;
    const { n, warnings } = notifier([target]);
    n.send(payload('ended', { cwd: dir }));
    await n.flush();
    expect(warnings).toEqual([expect.stringMatching(/^notification "ended" to notify\[0\] command: the command left processes running when it exited; stopped 1 process: sleep \(pid \d+\)$/)]);
    expect(execFileSync('ps', ['-eo', 'args='], { encoding: 'utf8' })).not.toContain(`sleep ${tag}`);
  });
});

function start404(): Promise<Receiver> {
  return (async () => {
    const { createServer } = await import('node:http');
    const received: Receiver['received'] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: '', at: Date.now() });
        res.writeHead(404).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise<void>((r) => server.close(() => r())) };
  })();
}
