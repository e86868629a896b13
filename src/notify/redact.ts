// Secrets (webhook URLs, tokens from `${VAR}`, --notify values) never reach a log, an event or
// a report (docs/config.md): every message notify/ writes goes through this first.

export type Redact = (text: string) => string;

/** Shorter values are left alone: hiding "1" or "on" everywhere would garble every message. */
const MIN_SECRET_LENGTH = 4;

export function makeRedactor(secrets: readonly string[]): Redact {
  const values = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
  if (values.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const v of values) out = out.split(v).join('[secret]');
    return out;
  };
}
