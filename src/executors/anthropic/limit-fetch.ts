// The SDK obeys any retry-after in silence (a 429 with `retry-after: 86400` sleeps a day inside
// one request, seen as "no output" by the watchdog). A wait that long belongs to the loop, where
// it is shown, bounded by --max-wait and interruptible (docs/overnight.md): such a response is
// handed back to the SDK marked "do not retry", and the executor reports it as a limit.

/** Retry-afters up to this long are left to the SDK's own quiet retries. */
const SDK_RETRY_AFTER_MAX_MS = 60_000;

/** How long the response asks to wait, in ms (retry-after-ms, retry-after seconds or date). */
export function retryAfterMs(headers: Pick<Headers, 'get'> | undefined, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = headers?.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number.parseFloat(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const at = Date.parse(raw);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

export function limitAwareFetch(inner: typeof fetch): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    if (response.status !== 429 && response.status !== 529) return response;
    const wait = retryAfterMs(response.headers);
    if (wait === undefined || wait <= SDK_RETRY_AFTER_MAX_MS) return response;
    const headers = new Headers(response.headers);
    headers.set('x-should-retry', 'false');
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  };
}
