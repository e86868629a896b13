// Redis is trusted for scheduling, not for commands (docs/queue.md "What a worker trusts"): every
// payload a coordinator or a worker puts there (jobs, progress, reports, warnings) is sealed with
// an HMAC of the shared secret, and opened only when the MAC matches. Whoever can write to Redis
// without the secret can delay or drop work, never choose what runs or what the coordinator writes.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { UsageError } from '../errors.js';

export const SECRET_ENV = 'RALPH_QUEUE_SECRET';
export const SECRET_FILE_ENV = 'RALPH_QUEUE_SECRET_FILE';
const MIN_SECRET_CHARS = 32;
const HINT = `make one once and give the same to the coordinator and every worker: export ${SECRET_ENV}=$(openssl rand -hex 32)`;

/** What a payload is: a MAC made for one kind is never accepted as another. */
export type SealKind = 'job' | 'progress' | 'report' | 'warning';

export interface Sealed {
  body: string;
  mac: string;
}

/** The shared secret from RALPH_QUEUE_SECRET, else the file RALPH_QUEUE_SECRET_FILE names; a usage error without one. */
export function readQueueSecret(env: NodeJS.ProcessEnv): string {
  let secret = env[SECRET_ENV];
  let where = SECRET_ENV;
  if (secret === undefined || secret === '') {
    const file = env[SECRET_FILE_ENV];
    if (file === undefined || file === '') {
      throw new UsageError(`a queued batch needs a shared secret: set ${SECRET_ENV} (or ${SECRET_FILE_ENV}, a file holding it) on the coordinator and on every worker`, HINT);
    }
    try {
      secret = readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new UsageError(`cannot read ${SECRET_FILE_ENV} ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, HINT);
    }
    where = `${SECRET_FILE_ENV} ${file}`;
  }
  if (secret.length < MIN_SECRET_CHARS) throw new UsageError(`the queue secret in ${where} is too short (${secret.length} characters; at least ${MIN_SECRET_CHARS})`, HINT);
  return secret;
}

function macOf(secret: string, kind: SealKind, body: string): Buffer {
  return createHmac('sha256', secret).update(`ralph-queue ${kind}\n`).update(body).digest();
}

export function seal(secret: string, kind: SealKind, value: unknown): Sealed {
  const body = JSON.stringify(value);
  return { body, mac: macOf(secret, kind, body).toString('hex') };
}

/** The sealed value, or null when it is not a sealed payload of `kind` made with `secret`. */
export function unseal(secret: string, kind: SealKind, sealed: unknown): unknown {
  if (typeof sealed !== 'object' || sealed === null) return null;
  const { body, mac } = sealed as Partial<Sealed>;
  if (typeof body !== 'string' || typeof mac !== 'string' || !/^[0-9a-f]{64}$/.test(mac)) return null;
  if (!timingSafeEqual(Buffer.from(mac, 'hex'), macOf(secret, kind, body))) return null;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return null;
  }
}

/** A sealed payload stored as a Redis string (reports, warnings). */
export function sealText(secret: string, kind: SealKind, value: unknown): string {
  return JSON.stringify(seal(secret, kind, value));
}

export function unsealText(secret: string, kind: SealKind, text: string | null): unknown {
  if (text === null) return null;
  try {
    return unseal(secret, kind, JSON.parse(text));
  } catch {
    return null;
  }
}
