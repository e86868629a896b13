// Connections to the queue's Redis. The first is a probe with a short bound, so a bad host or a
// Redis that is down is a one-line error before anything is enqueued; ioredis would otherwise
// retry for ever. The long-lived ones retry for ever on purpose: a Redis restart mid-batch must
// not end a coordinator or a worker (docs/queue.md).
import { Redis } from 'ioredis';
import { QUEUE } from '../contract.js';
import { UsageError } from '../errors.js';
import type { QueueUrl } from './redis-url.js';

export async function probeRedis(q: QueueUrl, timeoutMs: number = QUEUE.connectTimeoutMs): Promise<void> {
  const probe = new Redis(q.url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // connect() itself rejects with a bare "Connection is closed"; the cause comes as an event.
  let cause: unknown;
  probe.on('error', (error) => (cause ??= error));
  // Each step is bounded; its timer is cleared once the step settles, so a refused connection ends
  // the command at once rather than when the bound would have run out.
  const bounded = async <T>(step: Promise<T>): Promise<T> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([step, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(timeoutMs / 1000)}s`)), timeoutMs)))]);
    } finally {
      clearTimeout(timer);
    }
  };
  try {
    try {
      await bounded(probe.connect().then(() => probe.ping()));
    } catch (error) {
      throw new UsageError(`cannot reach Redis at ${q.display}: ${describe(cause ?? error)}`, 'start redis-server there, or fix --queue (see docs/queue.md)');
    }
    try {
      // ioredis selects the URL's database on connect and, when Redis refuses, carries on in
      // database 0 with only an error event: ask again, so a wrong number stops here.
      const db = Number(new URL(q.url).pathname.replace(/^\//, '') || 0);
      if (db !== 0) await bounded(probe.select(db));
    } catch (error) {
      throw new UsageError(`Redis at ${q.display} has no database ${new URL(q.url).pathname.slice(1)}: ${describe(error)}`, 'name a database this Redis has (0 to its `databases` setting minus 1), e.g. /0');
    }
  } finally {
    // Not on a connection that has already ended: ioredis would then wait 2 s for a close event
    // that has come and gone, and the command would linger that long after its answer.
    if (probe.status !== 'end') probe.disconnect();
  }
}

function describe(error: unknown): string {
  const e = error as NodeJS.ErrnoException & { message?: string };
  const text = String(e?.message ?? error).split('\n')[0]!;
  return e?.code && !text.includes(e.code) ? `${e.code} ${text}` : text;
}

/**
 * A connection for BullMQ and ralph's own keys: commands wait while Redis is away
 * (maxRetriesPerRequest null, as BullMQ's workers require) and reconnects back off up to 2 s.
 */
export function openRedis(q: QueueUrl, onError?: (message: string) => void): Redis {
  const redis = new Redis(q.url, {
    maxRetriesPerRequest: null,
    connectTimeout: QUEUE.connectTimeoutMs,
    retryStrategy: (times) => Math.min(times * 100, 2_000),
  });
  redis.on('error', (error) => onError?.(describe(error)));
  return redis;
}
