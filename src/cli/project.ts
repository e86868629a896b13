// What exec and batch take from the project's config file (docs/config.md): its agents and
// defaults for the runs, hooks and notification targets (the config's and --notify's), and the
// variables the agent must not see. Loaded once per command, before anything runs.
import { dirname, resolve } from 'node:path';
import { loadProjectConfig, type BatchDefaults, type ProjectConfig } from '../config/index.js';
import { makeRedactor, targetFromEntry, targetFromFlag, type Redact, type Target } from '../notify/index.js';

export interface ProjectSetup {
  config: ProjectConfig;
  targets: Target[];
  redact: Redact;
  /** Variables whose values are secrets: kept from the agent. */
  hideEnv: string[];
}

export function loadProject(dir: string, env: NodeJS.ProcessEnv, flags: { config?: string; notify?: string[] }): ProjectSetup {
  const config = loadProjectConfig(dir, env, flags.config);
  const fromFlags = (flags.notify ?? []).map((value, i) => targetFromFlag(value, i));
  const fromFile = config.notify.map((entry, i) => targetFromEntry(entry, i)).filter((t): t is Target => t !== null);
  return {
    config,
    targets: [...fromFile, ...fromFlags],
    // A --notify URL carries its secret in its path (Slack's do): it is one too.
    redact: makeRedactor([...config.secrets.values, ...(flags.notify ?? [])]),
    hideEnv: config.secrets.vars,
  };
}

/** True when the run needs a lifecycle at all (hooks or notifications). */
export function hasLifecycle(setup: ProjectSetup): boolean {
  return setup.targets.length > 0 || Object.keys(setup.config.hooks).length > 0;
}

/** The config's batch defaults; `out` is relative to the config file's folder. */
export function batchDefaults(config: ProjectConfig): BatchDefaults {
  const d = { ...config.batch };
  if (d.out !== undefined && config.file !== null) d.out = resolve(dirname(config.file), d.out);
  return d;
}
