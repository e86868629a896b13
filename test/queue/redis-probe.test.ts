// The probe that checks a queue's Redis before anything is enqueued (docs/queue.md) lets go once
// it has failed: it holds no timer or socket, so a refused `ralph batch --queue` or
// `ralph status --queue` ends with its error rather than lingering for the probe's 5 s bound.
import { describe, expect, it } from 'vitest';
import { probeRedis } from '../../src/queue/redis-connection.js';
import { parseQueueUrl } from '../../src/queue/redis-url.js';
import { freePort } from '../helpers/redis-server.js';

/** What keeps the process alive: timers and sockets. */
function held(): string[] {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout' || r === 'TCPSocketWrap').sort();
}

describe('probeRedis', () => {
  it('a refused connection: a one-line error naming the cause, and nothing left waiting', async () => {
    const before = held();
    const port = await freePort();
    await expect(probeRedis(parseQueueUrl(`redis://127.0.0.1:${port}`))).rejects.toThrow(`cannot reach Redis at redis://127.0.0.1:${port}: connect ECONNREFUSED`);
    expect(held()).toEqual(before);
  });
});
