// The API key must never leave ralph in an event, an error, a log line or a tool result. Whole
// texts are scrubbed with one replace; streamed text is scrubbed with a small hold-back, so a key
// split across two deltas is still caught, while text that cannot start a key flows on at once.

export const REDACTED = '[REDACTED]';

// Shorter "secrets" would match ordinary text; a real key is far longer than this.
const MIN_SECRET_LENGTH = 8;

export interface Redactor {
  /** The text with every occurrence of the secret replaced. */
  scrub(text: string): string;
  /** A scrubber for one stream of chunks; hold-back is released by flush(). */
  stream(): StreamRedactor;
}

export interface StreamRedactor {
  push(chunk: string): string;
  flush(): string;
}

const PASS_THROUGH: StreamRedactor = { push: (c) => c, flush: () => '' };

export function createRedactor(secret: string | undefined): Redactor {
  if (!secret || secret.length < MIN_SECRET_LENGTH) {
    return { scrub: (t) => t, stream: () => PASS_THROUGH };
  }
  const scrub = (text: string): string => (text.includes(secret) ? text.split(secret).join(REDACTED) : text);
  return {
    scrub,
    stream: () => createStreamRedactor(secret, scrub),
  };
}

function createStreamRedactor(secret: string, scrub: (t: string) => string): StreamRedactor {
  let held = '';
  const first = secret[0]!;
  /** Whether text from `at` to its end is a prefix of the secret (compared in place, no copy). */
  const startsSecret = (text: string, at: number): boolean => {
    for (let j = at; j < text.length; j++) if (text.charCodeAt(j) !== secret.charCodeAt(j - at)) return false;
    return true;
  };
  return {
    push(chunk: string): string {
      const text = held.length > 0 ? held + chunk : chunk;
      held = '';
      const clean = scrub(text);
      // Hold back the longest tail that could be the start of the secret.
      const from = Math.max(0, clean.length - secret.length + 1);
      for (let i = clean.indexOf(first, from); i >= 0; i = clean.indexOf(first, i + 1)) {
        if (startsSecret(clean, i)) {
          held = clean.slice(i);
          return clean.slice(0, i);
        }
      }
      return clean;
    },
    flush(): string {
      const rest = held;
      held = '';
      return rest;
    },
  };
}
