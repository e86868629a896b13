// The project config file once read, validated and expanded (docs/config.md).
import type { AgentSpec } from '../agents/index.js';
import type { HookName } from '../contract.js';
import type { ConfigLayer } from '../loop/run-config.js';
import type { NotifyEntry } from './schema.js';

export interface HookCommand {
  run: string;
  timeoutMs?: number;
}

export interface BatchDefaults {
  concurrency?: number;
  out?: string;
  isolate?: 'worktree' | 'none';
  planTimeoutMs?: number;
}

/** `deliver:` as written (docs/deliver.md); flags override it. */
export interface DeliverConfig {
  pr?: 'ready' | 'draft' | 'off';
  base?: string;
  remote?: string;
  githubUrl?: string;
  apiUrl?: string;
  checkpoint?: boolean;
  squash?: boolean;
}

/** `land:` as written (docs/deliver.md "Landing"). */
export interface LandConfig {
  checks?: string[];
  strategy?: 'rebase' | 'merge';
  target?: string;
  mergeMethod?: 'merge' | 'squash' | 'rebase';
  checkTimeoutMs?: number;
}

export interface ProjectConfig extends ConfigLayer {
  /** Absolute path of the file; null when none was found (every setting is then a default). */
  file: string | null;
  /** `file:line` of each setting, by dotted key: "agent", "agents.claude", "defaults.max_iterations", "notify.0". */
  where: Record<string, string>;
  agents: Record<string, AgentSpec>;
  batch: BatchDefaults;
  notify: NotifyEntry[];
  hooks: Partial<Record<HookName, HookCommand[]>>;
  secrets: Secrets;
  deliver: DeliverConfig;
  land: LandConfig;
}

/**
 * Values that came from the environment into `notify:` and `hooks:` (webhook URLs, tokens):
 * never written anywhere, and their variables are kept from the agent.
 */
export interface Secrets {
  vars: string[];
  values: string[];
}
