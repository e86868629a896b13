// Refusals as ralph reports them: what was refused (a write, a read, a connection), to which path
// or host, and how many times. Read from the sandbox library's violation lines, which carry paths
// the sandboxed process chose: they are untrusted text and are only ever shown, escaped.

export type RefusalKind = 'write' | 'read' | 'network';

export interface Refusal {
  what: RefusalKind;
  /** A path, or `host:port`. */
  target: string;
}

export interface RefusalCount extends Refusal {
  count: number;
}

const MAX_TARGET = 300;

/** One violation line of @anthropic-ai/sandbox-runtime (Linux seccomp, proxy, macOS seatbelt). */
export function parseViolation(line: string): Refusal | undefined {
  const net = /^deny network-outbound (\S+)/.exec(line);
  if (net) return { what: 'network', target: net[1]!.slice(0, MAX_TARGET) };
  // macOS: "deny(1) file-read-data /path", "deny(1) file-write-create /path".
  const mac = /^(?:\S+\(\d+\) )?deny(?:\(\d+\))? file-(read|write)[\w-]* (.+)$/.exec(line);
  if (mac) return { what: mac[1] === 'read' ? 'read' : 'write', target: mac[2]!.slice(0, MAX_TARGET) };
  // Linux: "deny openat /path", "deny unlinkat /path", "deny renameat2 /a -> /b".
  const fs = /^deny \w+ (\/.*)$/.exec(line);
  if (fs) return { what: 'write', target: fs[1]!.split(' -> ')[0]!.slice(0, MAX_TARGET) };
  return undefined;
}

/**
 * Writes a program's runtime tries at every start, whatever the agent does: Bun (opencode's
 * runtime) opens the kernel's trace marker for writing, to mark its traces, and goes on without
 * it. Refused like any other write, but not reported: it would tell the user and the agent of a
 * write the agent never made.
 */
const RUNTIME_PROBES: readonly string[] = ['/sys/kernel/debug/tracing/trace_marker', '/sys/kernel/tracing/trace_marker'];

export function isRuntimeProbe(r: Refusal): boolean {
  return r.what === 'write' && RUNTIME_PROBES.includes(r.target);
}

/** Counts per (what, target), in the order first seen; bounded so a flood cannot grow it. */
export class RefusalTally {
  private readonly counts = new Map<string, RefusalCount>();
  private total = 0;

  constructor(
    seed: readonly RefusalCount[] = [],
    private readonly maxKinds = 200,
  ) {
    for (const r of seed) {
      this.counts.set(key(r), { ...r });
      this.total += r.count;
    }
  }

  /** Adds one; returns the count so far for this target (undefined when past the bound). */
  add(r: Refusal): number | undefined {
    this.total++;
    const k = key(r);
    const known = this.counts.get(k);
    if (known) return ++known.count;
    if (this.counts.size >= this.maxKinds) return undefined;
    this.counts.set(k, { ...r, count: 1 });
    return 1;
  }

  get count(): number {
    return this.total;
  }

  list(): RefusalCount[] {
    return [...this.counts.values()].map((r) => ({ ...r }));
  }
}

function key(r: Refusal): string {
  return `${r.what}\0${r.target}`;
}

const WHAT_WORDS: Record<RefusalKind, string> = {
  write: 'writes outside the working tree (and to .git/hooks, .git/config, .ralph/) are refused',
  read: 'secrets such as ~/.ssh are hidden',
  network: 'connections go only to the allowed hosts',
};

/**
 * The line the next prompt gets, so the agent adapts instead of retrying: what the sandbox
 * refuses, and what it refused this time ("~/.bashrc was not written").
 */
export function feedbackFor(refusals: readonly RefusalCount[], home: string): string | undefined {
  if (refusals.length === 0) return undefined;
  const kinds = [...new Set(refusals.map((r) => r.what))];
  const shown = refusals.slice(0, 8).map((r) => {
    const target = shortPath(r.target, home).replace(/[`\n\r]/g, '?');
    const verb = r.what === 'write' ? 'was not written' : r.what === 'read' ? 'could not be read' : 'was not reached';
    return `\`${target}\` ${verb}${r.count > 1 ? ` (${r.count} tries)` : ''}`;
  });
  const more = refusals.length > shown.length ? `; and ${refusals.length - shown.length} more` : '';
  return `ralph's sandbox refused what you tried: ${kinds.map((k) => WHAT_WORDS[k]).join('; ')}. ${shown.join('; ')}${more}. Do not try again: work inside the working tree, or write BLOCKED.md if the plan needs more.`;
}

export function shortPath(path: string, home: string): string {
  return home !== '' && (path === home || path.startsWith(`${home}/`)) ? `~${path.slice(home.length)}` : path;
}
