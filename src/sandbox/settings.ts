// Where a run's sandbox settings come from: --sandbox over RALPH_SANDBOX (this machine, this
// session) over the plan's `sandbox:` over the config file's `sandbox:` over the default (auto).
// Lists add up: a plan loosens the project's policy for itself (docs/sandbox.md "Loosening it
// for one plan").
import { UsageError } from '../errors.js';

export const SANDBOX_MODES = ['on', 'off', 'auto'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** The `sandbox:` mapping of ralph.config.yaml and of a plan's front matter, camel-cased. */
export interface SandboxLayer {
  mode?: SandboxMode;
  allowHosts?: string[];
  denyRead?: string[];
  allowRead?: string[];
  allowWrite?: string[];
}

export interface SandboxSettings {
  mode: SandboxMode;
  /** Why this mode: which layer set it. */
  modeFrom: 'flag' | 'environment' | 'plan' | 'config' | 'default';
  allowHosts: string[];
  denyRead: string[];
  allowRead: string[];
  allowWrite: string[];
}

export const SANDBOX_KEYS = ['mode', 'allow_hosts', 'deny_read', 'allow_read', 'allow_write'] as const;

/** RALPH_SANDBOX=on|off|auto; empty is unset. A value that is none of them is a usage error. */
export function sandboxFromEnv(env: NodeJS.ProcessEnv): SandboxMode | undefined {
  const value = env.RALPH_SANDBOX?.trim();
  if (value === undefined || value === '') return undefined;
  if ((SANDBOX_MODES as readonly string[]).includes(value)) return value as SandboxMode;
  throw new UsageError(`RALPH_SANDBOX=${JSON.stringify(value.slice(0, 40))} is not a sandbox mode`, 'Set it to on, off or auto, or unset it.');
}

export function sandboxSettings(flag: SandboxMode | undefined, plan: SandboxLayer | undefined, config: SandboxLayer | undefined, fromEnv?: SandboxMode): SandboxSettings {
  const [mode, modeFrom]: [SandboxMode, SandboxSettings['modeFrom']] =
    flag !== undefined ? [flag, 'flag'] : fromEnv !== undefined ? [fromEnv, 'environment'] : plan?.mode !== undefined ? [plan.mode, 'plan'] : config?.mode !== undefined ? [config.mode, 'config'] : ['auto', 'default'];
  const list = (k: 'allowHosts' | 'denyRead' | 'allowRead' | 'allowWrite') => [...new Set([...(config?.[k] ?? []), ...(plan?.[k] ?? [])])];
  return { mode, modeFrom, allowHosts: list('allowHosts'), denyRead: list('denyRead'), allowRead: list('allowRead'), allowWrite: list('allowWrite') };
}

const FROM_WORDS: Record<SandboxSettings['modeFrom'], string> = {
  flag: 'from --sandbox',
  environment: 'from RALPH_SANDBOX',
  plan: "from the plan's sandbox:",
  config: 'from ralph.config.yaml sandbox:',
  default: 'the default',
};

export function describeMode(s: Pick<SandboxSettings, 'mode' | 'modeFrom'>): string {
  return `${s.mode} (${FROM_WORDS[s.modeFrom]})`;
}

/**
 * A `sandbox:` value as written (YAML): `on`/`off`/`auto` (or true/false) alone, or a mapping.
 * Returns the layer or the problem, worded for `<where>`.
 */
export function readSandboxValue(value: unknown, where: string): { layer: SandboxLayer } | { problem: string } {
  if (typeof value === 'boolean') return { layer: { mode: value ? 'on' : 'off' } };
  if (typeof value === 'string') {
    return (SANDBOX_MODES as readonly string[]).includes(value) ? { layer: { mode: value as SandboxMode } } : { problem: `${where}: expected on, off or auto, got ${JSON.stringify(value.slice(0, 40))}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { problem: `${where}: expected on, off, auto or a mapping (mode, allow_hosts, deny_read, allow_read, allow_write)` };
  }
  const layer: SandboxLayer = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'mode') {
      const m = readSandboxValue(v, `${where}.mode`);
      if ('problem' in m || typeof v === 'object') return 'problem' in m ? m : { problem: `${where}.mode: expected on, off or auto` };
      layer.mode = m.layer.mode!;
      continue;
    }
    const field = ({ allow_hosts: 'allowHosts', deny_read: 'denyRead', allow_read: 'allowRead', allow_write: 'allowWrite' } as const)[key as 'allow_hosts'];
    if (field === undefined) return { problem: `${where}: unknown key "${key}" (known: ${SANDBOX_KEYS.join(', ')})` };
    const items = typeof v === 'string' ? [v] : v;
    if (!Array.isArray(items) || items.some((i) => typeof i !== 'string' || i.trim() === '')) {
      return { problem: `${where}.${key}: expected a list of ${key === 'allow_hosts' ? 'hosts (host or host:port)' : 'paths'}` };
    }
    if (key === 'allow_hosts') {
      const bad = (items as string[]).find((h) => !/^(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-fA-F:]+\](:\d{1,5})?$/.test(h));
      if (bad !== undefined) return { problem: `${where}.allow_hosts: ${JSON.stringify(bad.slice(0, 60))} is not a host; write host, host:port or *.domain (no scheme, no path)` };
    }
    layer[field] = (items as string[]).map((i) => i.trim());
  }
  return { layer };
}
