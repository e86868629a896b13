// The sandbox library holds one session per process (its proxies and its violation monitor). Each
// run takes a lease on it: the session starts with the first lease and ends with the last; the
// hosts it lets through are those of the runs holding a lease; each run's own file policy goes
// with each command it wraps; each violation goes back to the run whose command caused it.
import { SandboxManager, type SandboxRuntimeConfig, type SandboxViolationEvent } from '@anthropic-ai/sandbox-runtime';
import type { SandboxPolicy } from './policy.js';

export interface Lease {
  /** A wrapped command has exited: the library removes its mount points once none is running. */
  commandEnded(): void;
  /** `command` (shell text) as a shell command line that runs it sandboxed; `tag` comes back with its violations. */
  wrap(command: string, tag: string): Promise<string>;
  release(): Promise<void>;
}

interface Holder {
  policy: SandboxPolicy;
  onViolation: (line: string, tag: string) => void;
}

const holders = new Map<string, Holder>();
let nextLease = 0;
let nextCommand = 0;
let session: Promise<void> | undefined;
let unsubscribe: (() => void) | undefined;
const seen = new WeakSet<SandboxViolationEvent>();

function allowedHosts(): string[] {
  return [...new Set([...holders.values()].flatMap((h) => h.policy.hosts))];
}

function sessionConfig(): SandboxRuntimeConfig {
  // No file rules here: each command carries its run's own (wrap's customConfig). With none, the
  // violation monitor reports every write outside the library's defaults, and each run keeps
  // those its own policy refuses.
  return {
    network: { allowedDomains: allowedHosts(), deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
  };
}

function route(violations: SandboxViolationEvent[]): void {
  for (const v of violations) {
    if (seen.has(v)) continue;
    seen.add(v);
    const key = v.encodedCommand !== undefined ? Buffer.from(v.encodedCommand, 'base64').toString('utf8') : '';
    const match = /^ralph-(\d+)-\d+-(\w+)$/.exec(key);
    const holder = match ? holders.get(match[1]!) : undefined;
    holder?.onViolation(v.line, match![2]!);
  }
}

export async function acquireSandbox(policy: SandboxPolicy, tmp: string, onViolation: (line: string, tag: string) => void): Promise<Lease> {
  const id = String(nextLease++);
  holders.set(id, { policy, onViolation });
  try {
    if (session === undefined) {
      session = withoutSignalHandlers(() => SandboxManager.initialize(sessionConfig(), undefined, true));
      await session;
      unsubscribe = SandboxManager.getSandboxViolationStore().subscribe(route);
    } else {
      await session;
      SandboxManager.updateConfig(sessionConfig());
    }
  } catch (error) {
    holders.delete(id);
    if (holders.size === 0) await endSession();
    throw error;
  }
  let released = false;
  return {
    commandEnded: () => SandboxManager.cleanupAfterCommand(),
    wrap: async (command, tag) => {
      const commandId = `ralph-${id}-${nextCommand++}-${tag}`;
      const wrapped = await SandboxManager.wrapWithSandbox(command, undefined, { filesystem: fileRules(policy) }, undefined, { commandId });
      return withPrivateTmp(withLoopbackProxied(wrapped, policy.hosts), tmp);
    },
    release: async () => {
      if (released) return;
      released = true;
      holders.delete(id);
      if (holders.size === 0) await endSession();
      else SandboxManager.updateConfig(sessionConfig());
    },
  };
}

/**
 * The library ends its session on the first SIGINT or SIGTERM. ralph stops gracefully on those (the
 * agent gets time to finish, a worker finishes its plans), so the session must outlive them: it
 * ends when the last run lets go (and on exit, which the library still handles).
 */
async function withoutSignalHandlers<T>(start: () => Promise<T>): Promise<T> {
  const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  try {
    return await start();
  } finally {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      for (const listener of process.listeners(signal)) if (!before[signal].includes(listener)) process.removeListener(signal, listener);
    }
  }
}

async function endSession(): Promise<void> {
  unsubscribe?.();
  unsubscribe = undefined;
  const was = session;
  session = undefined;
  if (was !== undefined) {
    await was.catch(() => undefined);
    await SandboxManager.reset();
  }
}

function fileRules(policy: SandboxPolicy): SandboxRuntimeConfig['filesystem'] {
  return { denyRead: policy.hidden, allowRead: policy.readable, allowWrite: policy.write, denyWrite: policy.readOnly };
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '::1'];

/**
 * The library sends loopback addresses around its proxy (NO_PROXY), but inside the sandbox's
 * network namespace nothing listens there: an allowed local host (an API stand-in, a local
 * registry) is only reachable through the proxy. So when one is allowed, loopback goes through the
 * proxy too, where it is let through or refused (and reported) like any other host.
 */
export function withLoopbackProxied(wrapped: string, hosts: readonly string[]): string {
  const loopbackAllowed = hosts.some((h) => LOOPBACK_NAMES.includes(hostName(h)) || /^127\./.test(hostName(h)));
  if (!loopbackAllowed) return wrapped;
  return wrapped.replace(/(--setenv (?:NO_PROXY|no_proxy) )([^\s']+)/g, (_all, prefix: string, list: string) => {
    const kept = list.split(',').filter((entry) => !LOOPBACK_NAMES.includes(entry));
    return `${prefix}${kept.join(',') || "''"}`;
  });
}

function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon > 0 && host.indexOf(':') === colon ? host.slice(0, colon) : host;
}

/** The library points TMPDIR at its own shared folder; each run gets its private one instead. */
export function withPrivateTmp(wrapped: string, tmp: string): string {
  const quoted = /^[\w@%+=:,./-]+$/.test(tmp) ? tmp : `'${tmp.replace(/'/g, `'\\''`)}'`;
  return wrapped.replace(/--setenv TMPDIR (?:'[^']*'|\S+)/, () => `--setenv TMPDIR ${quoted}`);
}
