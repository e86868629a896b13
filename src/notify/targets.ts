// Where notifications go (docs/config.md): from `--notify <target>` or the config's `notify:`.
import { NOTIFY_EVENTS, type NotifyEventName } from '../contract.js';
import { UsageError } from '../errors.js';
import type { NotifyEntry } from '../config/schema.js';

interface Filter {
  events: readonly NotifyEventName[];
  /** For `ended`: only these outcomes; null for any. */
  outcomes: readonly string[] | null;
}

export type Target = Filter & { label: string } & (
    | { kind: 'webhook'; url: string; secret?: string; headers: Record<string, string> }
    | { kind: 'slack'; url: string }
    | { kind: 'ntfy'; url: string; headers: Record<string, string> }
    | { kind: 'command'; command: string; timeoutMs: number }
  );

/** A command target's default bound; a hook's is HOOKS.timeoutMs. */
const COMMAND_TARGET_TIMEOUT_MS = 30_000;

const ALL: Filter = { events: NOTIFY_EVENTS, outcomes: null };

/** A URL shown without its path and query, where the secrets of a webhook live. */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'an invalid URL';
  }
}

function httpUrl(value: string, flag: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${flag}: not a URL (${value.length > 12 ? `${value.slice(0, 12)}…` : value})`, 'Give an http(s) URL, slack:URL, ntfy:URL, webhook:URL or command:"shell command".');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`${flag}: only http and https URLs can be notified`);
  return value;
}

/** `--notify` value: a URL (Slack and ntfy.sh hosts recognised), or kind:value. */
export function targetFromFlag(value: string, index: number): Target {
  const flag = '--notify';
  const m = /^(webhook|slack|ntfy|command):(.*)$/s.exec(value);
  const kind = m ? m[1]! : undefined;
  const rest = m ? m[2]! : value;
  if (kind === 'command') {
    if (rest.trim() === '') throw new UsageError(`${flag} command: needs a shell command after "command:"`);
    return { ...ALL, kind: 'command', command: rest, timeoutMs: COMMAND_TARGET_TIMEOUT_MS, label: `--notify command #${index + 1}` };
  }
  const url = httpUrl(rest, flag);
  const host = hostOf(url);
  const guessed = kind ?? (host === 'hooks.slack.com' ? 'slack' : host === 'ntfy.sh' ? 'ntfy' : 'webhook');
  if (guessed === 'slack') return { ...ALL, kind: 'slack', url, label: `slack ${host}` };
  if (guessed === 'ntfy') return { ...ALL, kind: 'ntfy', url, headers: {}, label: `ntfy ${host}` };
  return { ...ALL, kind: 'webhook', url, headers: {}, label: `webhook ${host}` };
}

/** A validated `notify:` entry; null when its URL expanded to nothing (an optional `${VAR:-}`). */
export function targetFromEntry(entry: NotifyEntry, index: number): Target | null {
  const filter: Filter = { events: entry.events ?? NOTIFY_EVENTS, outcomes: entry.outcomes ?? null };
  const n = `notify[${index}]`;
  if (entry.command !== undefined) {
    return { ...filter, kind: 'command', command: entry.command, timeoutMs: entry.timeout ?? COMMAND_TARGET_TIMEOUT_MS, label: `${n} command` };
  }
  const url = entry.webhook ?? entry.slack ?? entry.ntfy ?? '';
  if (url === '') return null;
  if (entry.slack !== undefined) return { ...filter, kind: 'slack', url, label: `${n} slack ${hostOf(url)}` };
  if (entry.ntfy !== undefined) return { ...filter, kind: 'ntfy', url, headers: entry.headers ?? {}, label: `${n} ntfy ${hostOf(url)}` };
  return {
    ...filter,
    kind: 'webhook',
    url,
    headers: entry.headers ?? {},
    ...(entry.secret ? { secret: entry.secret } : {}),
    label: `${n} webhook ${hostOf(url)}`,
  };
}

export function wants(target: Target, event: NotifyEventName, outcome: string | null): boolean {
  if (!target.events.includes(event)) return false;
  if (event === 'ended' && target.outcomes !== null) return outcome !== null && target.outcomes.includes(outcome);
  return true;
}
