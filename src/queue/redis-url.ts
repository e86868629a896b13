// The `--queue` URL (docs/queue.md): redis://[user:password@]host[:port][/db] or rediss:// for
// TLS. Checked before anything connects, and shown with its password masked.
import { UsageError } from '../errors.js';

export interface QueueUrl {
  /** The URL as given: ioredis reads it (the password stays in memory only). */
  url: string;
  /** For messages and files: the password replaced by `***`. */
  display: string;
}

const HINT = 'give the Redis server as redis://host:port[/db] (or rediss:// for TLS), e.g. --queue redis://127.0.0.1:6379/0';

export function parseQueueUrl(text: string): QueueUrl {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new UsageError(`--queue "${maskInText(text)}" is not a URL`, HINT);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw new UsageError(`--queue must be a redis:// or rediss:// URL, got ${u.protocol}//`, HINT);
  if (!u.hostname) throw new UsageError(`--queue ${maskUrl(u)} names no host`, HINT);
  if (u.port !== '' && !(Number(u.port) >= 1 && Number(u.port) <= 65535)) throw new UsageError(`--queue ${maskUrl(u)}: port ${u.port} is out of range`, HINT);
  const db = u.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) throw new UsageError(`--queue ${maskUrl(u)}: the database after / must be a number, got "${db}"`, HINT);
  if (u.search || u.hash) throw new UsageError(`--queue ${maskUrl(u)}: query strings and fragments are not supported`, HINT);
  for (const [what, part] of [['user', u.username], ['password', u.password]] as const) {
    try {
      decodeURIComponent(part);
    } catch {
      throw new UsageError(`--queue ${maskUrl(u)}: the ${what} is not valid percent-encoding`, 'write a % in it as %25 (and other reserved characters percent-encoded), e.g. redis://:p%25ss@host:6379');
    }
  }
  return { url: text, display: maskUrl(u) };
}

function maskUrl(u: URL): string {
  const copy = new URL(u.href);
  if (copy.password) copy.password = '***';
  return copy.href.replace(/\/$/, '');
}

function maskInText(text: string): string {
  return text.replace(/:\/\/([^:@/]*):[^@/]*@/, '://$1:***@');
}
